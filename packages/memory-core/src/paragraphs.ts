/**
 * Splits a Markdown note into the paragraphs `memory_search` ranks: blocks of non-blank lines.
 * A heading line ends the block before it and labels the blocks under it, so "## Decisions"
 * followed by a list makes the list findable by "decisions".
 */

export interface NoteParagraph {
  /** 1-based first and last line of the block in its file. */
  startLine: number;
  endLine: number;
  text: string;
  /** Text of the nearest heading above the block, without the `#` marks. */
  heading?: string;
}

const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;

export function splitParagraphs(text: string): NoteParagraph[] {
  const paragraphs: NoteParagraph[] = [];
  let heading: string | undefined;
  let block: { startLine: number; lines: string[] } | undefined;
  const flush = (): void => {
    if (block === undefined) return;
    const paragraph: NoteParagraph = {
      startLine: block.startLine,
      endLine: block.startLine + block.lines.length - 1,
      text: block.lines.join("\n"),
    };
    if (heading !== undefined) paragraph.heading = heading;
    paragraphs.push(paragraph);
    block = undefined;
  };
  text.split(/\r?\n/).forEach((line, index) => {
    const headingMatch = HEADING.exec(line);
    if (headingMatch !== null) {
      flush();
      heading = headingMatch[1] || undefined;
    } else if (line.trim() === "") {
      flush();
    } else if (block === undefined) {
      block = { startLine: index + 1, lines: [line] };
    } else {
      block.lines.push(line);
    }
  });
  flush();
  return paragraphs;
}
