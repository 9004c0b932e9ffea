/**
 * Filler that looks like what coding agents read: prompts, source files, logs and command output.
 * Mostly lower case, so the summarizer stub's identifier pattern (`[A-Z0-9_-]{6,}`) picks up the
 * planted codes rather than thousands of incidental tokens.
 */
import type { SeededRandom } from "../random.js";

const MODULES = ["billing", "auth", "search", "upload", "scheduler", "metrics", "inbox", "export", "gateway"];
const FILES = ["handler", "client", "store", "routes", "config", "parser", "queue", "cache", "retry"];
const SYMPTOMS = [
  "the retry loop never stops",
  "requests time out under load",
  "the cache returns stale entries",
  "the parser drops the last line",
  "the queue stalls after a restart",
  "the tests are flaky on ci",
  "memory keeps growing overnight",
];
const GOALS = [
  "errors carry the request id",
  "the timeout is configurable",
  "the function no longer mutates its input",
  "the batch size comes from config",
  "logging goes through the shared logger",
];
const COMMANDS = [
  "npm test",
  "npm run lint",
  "git status",
  "npx tsc --noEmit",
  "ls -la src",
  "git log --oneline",
];
const WORDS = ["request", "batch", "record", "token", "session", "payload", "cursor", "window", "entry"];

export function sourcePath(random: SeededRandom): string {
  return `src/${random.pick(MODULES)}/${random.pick(FILES)}.ts`;
}

export function userPrompt(random: SeededRandom, task: number): string {
  const path = sourcePath(random);
  switch (random.integer(0, 2)) {
    case 0:
      return `Task ${task}: can you look at ${path} and find out why ${random.pick(SYMPTOMS)}?`;
    case 1:
      return `Task ${task}: please refactor ${path} so that ${random.pick(GOALS)}.`;
    default:
      return `Task ${task}: run the ${random.pick(MODULES)} tests and fix whatever fails in ${path}.`;
  }
}

export function finalAnswer(random: SeededRandom, task: number): string {
  return `Task ${task} is done: ${random.pick(SYMPTOMS).replace(/^the /, "the fix means ")} no longer shows up, and ${random.pick(GOALS)}. I ran the tests again and they pass.`;
}

/** Source-code lines until `chars` characters. */
export function codeText(random: SeededRandom, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index++) {
    const word = random.pick(WORDS);
    const line = `export function handle${capitalize(word)}${index}(${word}: ${capitalize(word)}Input) { return normalize(${word}, { limit: ${random.integer(1, 500)} }); }`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n").slice(0, chars);
}

/** Log lines until `chars` characters. */
export function logText(random: SeededRandom, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index++) {
    const line = `t+${index * random.integer(3, 40)}ms worker-${random.integer(1, 8)} ${random.pick(WORDS)} ${random.pick(["processed", "queued", "retried", "skipped"])} in ${random.integer(1, 900)}ms`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n").slice(0, chars);
}

export function shellCommand(random: SeededRandom): string {
  return random.pick(COMMANDS);
}

/** `text` with `insert` as a line of its own at `position` (0..1) of its lines. */
export function insertLine(text: string, insert: string, position: number): string {
  const lines = text.split("\n");
  const at = Math.min(lines.length, Math.max(0, Math.round(position * lines.length)));
  return [...lines.slice(0, at), insert, ...lines.slice(at)].join("\n");
}

function capitalize(word: string): string {
  return `${word[0]?.toUpperCase() ?? ""}${word.slice(1)}`;
}
