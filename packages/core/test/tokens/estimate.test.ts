import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charEstimateTokenCounter, estimateStringChars } from "../../src/index.js";

/** The definition, spelled out slowly: code points, plus three per Han, kana or Hangul character. */
function referenceChars(text: string): number {
  let chars = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    const cjk =
      (code >= 0x3040 && code <= 0x30ff) ||
      (code >= 0x3400 && code <= 0x4dbf) ||
      (code >= 0x4e00 && code <= 0x9fff) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xac00 && code <= 0xd7af);
    chars += cjk ? 4 : 1;
  }
  return chars;
}

describe("estimateStringChars", () => {
  it("counts code points, not UTF-16 units, and four per CJK character", () => {
    expect(estimateStringChars("plain ascii")).toBe(11);
    expect(estimateStringChars("😀")).toBe(1);
    expect(estimateStringChars("a😀b")).toBe(3);
    expect(estimateStringChars("日本語")).toBe(12);
    expect(estimateStringChars("한국어 ok")).toBe(15);
    // A lone surrogate is one code point as JavaScript iterates strings.
    expect(estimateStringChars("x\ud800y")).toBe(3);
    expect(estimateStringChars("")).toBe(0);
  });

  it("agrees with the definition for any text, whichever path it takes", () => {
    const pieces = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.string({ unit: "binary" }),
      fc.constantFrom(
        "日本",
        "한",
        "😀",
        "\ud83d",
        "\ude00",
        "カタカナ",
        "\u3040",
        "\u30ff",
        "\ud7af",
        "\ud7b0",
      ),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }), (parts) => {
        const text = parts.join("");
        expect(estimateStringChars(text)).toBe(referenceChars(text));
      }),
      { numRuns: 500 },
    );
  });

  it("agrees with the definition for every code unit, alone and beside a surrogate pair", () => {
    // Random strings rarely reach the CJK blocks; every code unit does, so a wrong range fails here.
    for (let unit = 0; unit <= 0xffff; unit++) {
      const character = String.fromCharCode(unit);
      for (const text of [character, `a${character}`, `😀${character}`, `${character}\udc00`]) {
        if (estimateStringChars(text) !== referenceChars(text)) {
          expect({ unit: unit.toString(16), text, chars: estimateStringChars(text) }).toEqual({
            unit: unit.toString(16),
            text,
            chars: referenceChars(text),
          });
        }
      }
    }
  });

  it("gives the chars/4 counter its figures", () => {
    expect(charEstimateTokenCounter.countText("a".repeat(9))).toBe(3);
    expect(charEstimateTokenCounter.countText("日本語")).toBe(3);
  });
});
