/**
 * The tokenizer of the BM25 baseline: lower case, split on anything that is not a letter or a
 * digit, drop one-character pieces and a short list of English function words. `NDL-7K2MQ9TB`
 * becomes `ndl` and `7k2mq9tb`, so a code is still found by its rare half.
 */
const STOPWORDS = new Set(
  (
    "a an and are as at be but by can did do does for from had has have he her his how i if in into is it its " +
    "me my no not of on or our she so than that the their them then there these they this to was we were " +
    "what when where which who why will with would you your"
  ).split(" "),
);

export function textTerms(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length > 1 && !STOPWORDS.has(term));
}
