/**
 * Turns search terms into an FTS5 MATCH expression: each term becomes a quoted phrase (so
 * `NDL-7K2M9QXA` or `src/a.ts` match as written, their words adjacent and in order), and the
 * phrases are joined with OR so BM25 ranks messages matching more and rarer terms first. Quoting
 * also means no term is ever read as FTS5 syntax (`AND`, `NEAR`, `*`, `:`).
 */

/** Terms without a letter or digit tokenize to nothing, and an empty phrase is an FTS5 error. */
const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** The MATCH expression, or undefined when no term has anything to search for. */
export function matchExpression(terms: readonly string[], column?: string): string | undefined {
  const phrases = terms
    .filter((term) => HAS_WORD_CHARACTER.test(term))
    .map((term) => `"${term.replaceAll('"', '""')}"`);
  if (phrases.length === 0) return undefined;
  const expression = phrases.join(" OR ");
  return column === undefined ? expression : `${column} : (${expression})`;
}
