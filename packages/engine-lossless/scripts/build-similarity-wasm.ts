/**
 * Compiles `src/embeddings/vector-rows/similarity-scan.wat` with wabt (a dev dependency) and writes
 * the bytes into `SIMILARITY_SCAN_WASM` of `vector-rows.ts`, so the engine needs no build step:
 *
 *   node --import tsx packages/engine-lossless/scripts/build-similarity-wasm.ts
 *
 * `test/vector-rows.test.ts` compiles the source the same way and fails when the two differ.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import wabt from "wabt";

const SOURCE = fileURLToPath(new URL("../src/embeddings/vector-rows/similarity-scan.wat", import.meta.url));
const MODULE = fileURLToPath(new URL("../src/embeddings/vector-rows/vector-rows.ts", import.meta.url));

/** The module `similarity-scan.wat` compiles to, as base64. */
export async function compileSimilarityScan(): Promise<string> {
  const tools = await wabt();
  const parsed = tools.parseWat(SOURCE, await readFile(SOURCE, "utf8"), { simd: true });
  try {
    parsed.validate();
    const { buffer: bytes } = parsed.toBinary({});
    return Buffer.from(bytes).toString("base64");
  } finally {
    parsed.destroy();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bytes = await compileSimilarityScan();
  const text = await readFile(MODULE, "utf8");
  const updated = text.replace(/(export const SIMILARITY_SCAN_WASM =\s*)"[^"]*"/u, `$1"${bytes}"`);
  if (updated === text && !text.includes(bytes)) {
    process.stderr.write(`${MODULE}: no SIMILARITY_SCAN_WASM constant to update\n`);
    process.exit(1);
  }
  await writeFile(MODULE, updated);
  process.stdout.write(`${MODULE}: ${Buffer.from(bytes, "base64").length} bytes\n`);
}
