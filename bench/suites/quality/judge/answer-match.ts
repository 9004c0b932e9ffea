/**
 * The grading that needs no model: does the answer hold the expected answer? Text is compared
 * after normalizing case, accents, punctuation and whitespace, on word boundaries, so "Lisbon."
 * holds "lisbon" but "Lisbonne" does not.
 */

/** Lower case, accents and punctuation dropped, words separated by single spaces. */
export function normalizeAnswerText(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * True when `answer` contains every `;`-separated part of `expected` (a multi-hop answer needs
 * both facts), each as whole words. An expected answer with no words never matches.
 */
export function containsExpectedAnswer(answer: string, expected: string): boolean {
  const parts = expected
    .split(";")
    .map(normalizeAnswerText)
    .filter((part) => part.length > 0);
  if (parts.length === 0) return false;
  const haystack = ` ${normalizeAnswerText(answer)} `;
  return parts.every((part) => haystack.includes(` ${part} `));
}
