/**
 * A message with some character ranges taken out. Extraction runs on `maskView`, where taken-out
 * characters read as spaces: indices stay aligned with the original, a later pattern can never
 * match across or into a removed token, and "at the start or after whitespace" still holds next
 * to one. The original text is only rebuilt once, at the end.
 */
export interface TextMask {
  readonly text: string;
  /** Removed `[start, end)` ranges, in the order they were taken; they never overlap. */
  readonly ranges: { start: number; end: number }[];
}

export function createTextMask(text: string): TextMask {
  return { text, ranges: [] };
}

/** The caller never removes a range overlapping one already removed. */
export function removeRange(mask: TextMask, start: number, end: number): void {
  if (end > start) mask.ranges.push({ start, end });
}

function sortedRanges(mask: TextMask): { start: number; end: number }[] {
  return [...mask.ranges].sort((left, right) => left.start - right.start);
}

export function maskView(mask: TextMask): string {
  const pieces: string[] = [];
  let cursor = 0;
  for (const range of sortedRanges(mask)) {
    pieces.push(mask.text.slice(cursor, range.start), " ".repeat(range.end - range.start));
    cursor = range.end;
  }
  pieces.push(mask.text.slice(cursor));
  return pieces.join("");
}

const WHITESPACE = /\s/;

/**
 * The text without the removed ranges. Only the whitespace around a removed token collapses:
 * to nothing at either end; to one line break and the next line's indentation when it held a
 * line break, so removing a directive never joins two lines; else to one space. Whitespace
 * elsewhere, such as indentation in a code block, is left as typed.
 */
export function remainingText(mask: TextMask): string {
  const { text } = mask;
  const ranges = sortedRanges(mask);
  const pieces: string[] = [];
  let cursor = 0;
  let next = 0;
  while (next < ranges.length) {
    const first = ranges[next] as { start: number; end: number };
    let start = first.start;
    while (start > cursor && isWhitespace(text, start - 1)) start--;
    let gap = text.slice(start, first.start);
    let end = first.end;
    next++;
    for (;;) {
      const whitespaceEnd = skipWhitespace(text, end);
      gap += text.slice(end, whitespaceEnd);
      end = whitespaceEnd;
      const following = ranges[next];
      if (following === undefined || following.start !== end) break;
      end = following.end;
      next++;
    }
    pieces.push(text.slice(cursor, start), separatorFor(gap));
    cursor = end;
  }
  pieces.push(text.slice(cursor));
  // Trimming also drops the separator of a token removed at either end.
  return pieces.join("").trim();
}

function isWhitespace(text: string, index: number): boolean {
  return WHITESPACE.test(text.charAt(index));
}

function skipWhitespace(text: string, from: number): number {
  let index = from;
  while (index < text.length && isWhitespace(text, index)) index++;
  return index;
}

/** A line break keeps the next line's indentation, so code under a directive stays aligned. */
function separatorFor(gap: string): string {
  const lastBreak = gap.lastIndexOf("\n");
  return lastBreak < 0 ? " " : `\n${gap.slice(lastBreak + 1)}`;
}
