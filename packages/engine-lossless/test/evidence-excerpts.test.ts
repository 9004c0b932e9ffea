import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { excerptOf, wholeWordPlaces } from "../src/assemble/excerpt.js";
import { isRecalledContext } from "../src/assemble/recall-evidence.js";
import { fillerText, readOutputThenChat } from "./support/conversations.js";
import { assembleAfterCompaction } from "./support/preparation.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());
const START = Date.UTC(2025, 3, 1, 9);
const NEEDLE = "The staging relay listens on port 7431 behind the blue gateway.";

describe("excerpts of long messages", () => {
  it("keeps the window holding the most query words, its edges on whitespace", () => {
    const text = `${fillerText(5_000, 1)} ${NEEDLE} ${fillerText(5_000, 2)} relay ${fillerText(3_000, 3)}`;
    const excerpt = excerptOf(text, ["relay", "port", "gateway"], 600);
    expect(excerpt.text).toContain(NEEDLE);
    expect(excerpt.text.length).toBeLessThanOrEqual(600);
    expect(text.slice(excerpt.from, excerpt.to)).toBe(excerpt.text);
    expect(/\s/u.test(text[excerpt.from - 1] ?? "")).toBe(true);
    expect(/\s/u.test(text[excerpt.to] ?? "")).toBe(true);
  });

  it("matches whole words in the text as written, and never cuts a character in two", () => {
    // "port" inside a hundred "import" lines must not hide the one real "port".
    const imports = Array.from({ length: 100 }, (_, index) => `import module${index} from "x";`).join("\n");
    const found = excerptOf(`${imports}\n${NEEDLE}\n${imports}`, ["port"], 300);
    expect(found.text).toContain(NEEDLE);
    // Lower-casing "İ" makes two characters: offsets must come from the text itself.
    const dotted = `${"İ".repeat(300)} ${fillerText(2_000, 8)} ${NEEDLE} ${fillerText(2_000, 9)}`;
    expect(excerptOf(dotted, ["relay", "port"], 400).text).toContain(NEEDLE);
    // A letter outside the BMP (a surrogate pair) next to "port" makes it part of a word.
    const astral = `${"𝐀port port𠀀 ".repeat(200)}${NEEDLE} ${fillerText(2_000, 10)}`;
    expect(excerptOf(astral, ["port"], 300).text).toContain(NEEDLE);
    // No whitespace near the edges: an emoji at either edge stays whole or goes whole.
    const emoji = "😀".repeat(2_000);
    const cut = excerptOf(emoji, ["zzqx"], 301);
    expect(cut.text.length % 2).toBe(0);
    expect([...cut.text].every((character) => character === "😀")).toBe(true);
  });

  it("finds a word's places as the pattern with lookarounds does, for any text", () => {
    // The definition: the word, case-insensitively, with no letter or digit on either side.
    const reference = (text: string, word: string) => {
      const escaped = word.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "giu");
      return [...text.matchAll(pattern)].map((match) => match.index).slice(0, 64);
    };
    const piece = fc.constantFrom(
      "port",
      "PORT",
      "Port",
      "p",
      "or",
      "t",
      "7",
      "٣",
      " ",
      "\n",
      ".",
      "-",
      "_",
      "/",
      "é",
      "İ",
      "ß",
      "𝐀",
      "😀",
      "𠀀",
      "\ud835",
      "\udc00",
      "日本",
      "ab",
      "aba",
      "a.b",
      "x-x",
      "\u0345",
    );
    const text = fc
      .array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 40 })
      .map((parts) => parts.join(""));
    const word = fc.oneof(
      fc.constantFrom("port", "aba", "a.b", "x-x", "t", "7", "ß", "𝐀port", "é", "日本", ".", "-x"),
      fc.string({ minLength: 1, maxLength: 3 }),
    );
    fc.assert(
      fc.property(text, word, (sample, query) => {
        expect(wholeWordPlaces(sample, query)).toEqual(reference(sample, query));
      }),
      { numRuns: 600 },
    );
    // Astral letters touch a word through a surrogate pair, on either side; an emoji does not.
    expect(wholeWordPlaces("𝐀port port𝐀", "port")).toEqual([]);
    expect(wholeWordPlaces("😀port😀", "port")).toEqual([2]);
    // U+0345 folds to a Greek letter: as in the word's own pattern, it touches the word.
    expect(wholeWordPlaces("port\u0345 \u0345port", "port")).toEqual([]);
    // A match skipped for its edges may hide a whole-word one starting inside it.
    expect(wholeWordPlaces("ax.x.x", "x.x")).toEqual([3]);
    expect(wholeWordPlaces("a𝐀x𝐀x 𝐀x", "𝐀x")).toEqual(reference("a𝐀x𝐀x 𝐀x", "𝐀x"));
    // More places than the cap: the first 64, as the pattern gives them.
    const many = "port ".repeat(100);
    expect(wholeWordPlaces(many, "port")).toEqual(reference(many, "port"));
  });

  it("answers a short text whole, and a long one without a match by its opening", () => {
    expect(excerptOf("short text", ["zzz"], 600)).toEqual({ text: "short text", from: 0, to: 10 });
    const long = fillerText(3_000, 4);
    const opening = excerptOf(long, ["zzqx"], 500);
    expect(opening.from).toBe(0);
    expect(long.startsWith(opening.text)).toBe(true);
    expect(opening.text.length).toBeLessThanOrEqual(500);
  });

  it("recalls the part of a long tool output that answers the prompt, saying where it sits", async () => {
    const output = `${fillerText(15_000, 5)}\n${NEEDLE}\n${fillerText(15_000, 6)}`;
    const messages = readOutputThenChat(output, START);
    const prompt = "Which port does the staging relay listen on?";
    const result = await assembleAfterCompaction(await engines.engine(), messages, 3_000, prompt);
    const block = JSON.stringify(result.messages.find(isRecalledContext) ?? null);
    expect(block).toContain(NEEDLE);
    expect(block).toMatch(/\(excerpt: characters \d+–\d+ of 30\d{3}; recall_read m3 reads it all\)/);
    expect(result.estimatedTokens).toBeLessThanOrEqual(3_000);
  });
});
