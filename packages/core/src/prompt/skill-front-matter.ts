/**
 * Reads `name` and `description` from a SKILL.md front matter block (`---` … `---` at the top of
 * the file). Only these two keys matter to the prompt, so this is a small hand parser of the YAML
 * forms skill files use (plain, quoted, multi-line and `|`/`>` block values) rather than a YAML
 * dependency; other keys, including nested ones, are skipped unread.
 */
export type FrontMatterParse =
  | { ok: true; name?: string; description?: string }
  | { ok: false; line: number; reason: string };

const WANTED_KEYS = new Set(["name", "description"]);
const KEY_LINE = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$/;
const BLOCK_HEADER = /^([|>])[+-]?[1-9]?[+-]?[ \t]*(?:#.*)?$/;
const NESTED_START = /^(?:- |-$|[^\s:#'"][^:]*:(?:\s|$))/;

/** Parses the front matter of a SKILL.md text. Never throws; problems carry a 1-based line. */
export function parseSkillFrontMatter(text: string): FrontMatterParse {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return fail(1, "no front matter: the file must start with a --- line");
  const end = lines.findIndex((line, index) => index > 0 && /^(?:---|\.\.\.)\s*$/.test(line));
  if (end < 0) return fail(1, "front matter is not closed by a --- line");
  const values: { name?: string; description?: string } = {};
  let index = 1;
  while (index < end) {
    const line = lines[index] ?? "";
    if (isBlankOrComment(line) || /^\s/.test(line)) {
      index++;
      continue;
    }
    const match = KEY_LINE.exec(line);
    if (match === null) return fail(index + 1, `expected "key: value", got ${JSON.stringify(line.trim())}`);
    const key = match[1] ?? "";
    const continuation = continuationLines(lines, index + 1, end);
    if (WANTED_KEYS.has(key)) {
      if (values[key as "name" | "description"] !== undefined)
        return fail(index + 1, `duplicate key "${key}"`);
      const parsed = parseValue((match[2] ?? "").trim(), continuation, key);
      if (!parsed.ok) return fail(index + 1, parsed.reason);
      values[key as "name" | "description"] = parsed.value;
    }
    index += 1 + continuation.length;
  }
  return { ok: true, ...values };
}

function fail(line: number, reason: string): FrontMatterParse {
  return { ok: false, line, reason };
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === "" || trimmed.startsWith("#");
}

/** The blank or indented lines after a key line: they belong to that key. */
function continuationLines(lines: readonly string[], start: number, end: number): string[] {
  const taken: string[] = [];
  for (let index = start; index < end; index++) {
    const line = lines[index] ?? "";
    if (line.trim() !== "" && !/^\s/.test(line)) break;
    taken.push(line);
  }
  while (taken.length > 0 && (taken.at(-1) ?? "").trim() === "") taken.pop();
  return taken;
}

type ValueParse = { ok: true; value: string } | { ok: false; reason: string };

function parseValue(rest: string, continuation: readonly string[], key: string): ValueParse {
  if (BLOCK_HEADER.test(rest)) return { ok: true, value: blockScalar(rest.startsWith("|"), continuation) };
  if (rest.startsWith('"') || rest.startsWith("'")) {
    return quotedScalar([rest, ...continuation.map((line) => line.trim())].join(" "), key);
  }
  if (/^[[{&*!%@`]/.test(rest)) return { ok: false, reason: `"${key}" must be plain text` };
  const first = continuation.find((line) => line.trim() !== "")?.trim();
  if (rest === "" && first !== undefined && NESTED_START.test(first)) {
    return { ok: false, reason: `"${key}" must be text, not a list or mapping` };
  }
  const parts = [stripComment(rest), ...continuation.map((line) => stripComment(line.trim()))];
  return { ok: true, value: foldLines(parts) };
}

function stripComment(text: string): string {
  const comment = text.search(/(?:^|\s)#/);
  return (comment < 0 ? text : text.slice(0, comment)).trim();
}

/** YAML folding: lines join with a space, an empty line stands for a line break. */
function foldLines(parts: readonly string[]): string {
  let value = "";
  for (const part of parts) {
    if (part === "") value += "\n";
    else if (value === "" || value.endsWith("\n")) value += part;
    else value += ` ${part}`;
  }
  return value.trim();
}

function blockScalar(literal: boolean, continuation: readonly string[]): string {
  const indents = continuation
    .filter((line) => line.trim() !== "")
    .map((line) => /^\s*/.exec(line)?.[0].length ?? 0);
  const indent = indents.length === 0 ? 0 : Math.min(...indents);
  const lines = continuation.map((line) => line.slice(indent).trimEnd());
  return (literal ? lines.join("\n") : foldLines(lines)).trim();
}

function quotedScalar(text: string, key: string): ValueParse {
  const quote = text[0];
  let value = "";
  for (let index = 1; index < text.length; index++) {
    const character = text[index] ?? "";
    if (quote === "'" && character === "'" && text[index + 1] === "'") {
      value += "'";
      index++;
    } else if (character === quote) {
      const after = stripComment(text.slice(index + 1));
      if (after !== "") return { ok: false, reason: `unexpected text after the quoted "${key}" value` };
      return { ok: true, value: value.trim() };
    } else if (quote === '"' && character === "\\") {
      const escaped = unescapeAt(text, index + 1);
      if (escaped === undefined) return { ok: false, reason: `invalid escape in the quoted "${key}" value` };
      value += escaped.text;
      index = escaped.end;
    } else {
      value += character;
    }
  }
  return { ok: false, reason: `the quoted "${key}" value is not closed` };
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\",
  '"': '"',
  "/": "/",
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
  " ": " ",
};

function unescapeAt(text: string, index: number): { text: string; end: number } | undefined {
  const character = text[index];
  if (character === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[character];
  if (simple !== undefined) return { text: simple, end: index };
  if (character === "u") {
    const hex = text.slice(index + 1, index + 5);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
    return { text: String.fromCharCode(Number.parseInt(hex, 16)), end: index + 4 };
  }
  return undefined;
}
