/**
 * A growing set of vectors and the dot product of one query vector with a run of them: the scan
 * that finds a query word's neighbours among a session's words (`SessionTerms`), where it is the
 * whole cost of a word seen for the first time.
 *
 * Two implementations, one answer (to float rounding): WebAssembly SIMD, four lanes a step (a scan
 * of 12,000 words of 100 dimensions took 0.14 ms, against 1.1–1.6 ms in JavaScript), and plain
 * JavaScript for a runtime without WebAssembly (`node --jitless`). `createVectorRows` picks the
 * first that works; nothing else may tell them apart.
 */
import { dot } from "../semantic-recall.js";

export interface VectorRows {
  readonly dimensions: number;
  /** Vectors appended so far. */
  readonly count: number;
  /** Which implementation answers. */
  readonly kind: "wasm" | "js";
  /** Appends `vector` (`dimensions` long) as row `count`. */
  append(vector: Float32Array): void;
  /**
   * The dot products of `query` with rows `from` up to (not including) `to`, in row order. The
   * array is a view the next call may overwrite: read it before calling again.
   */
  dots(query: Float32Array, from: number, to: number): Float32Array;
}

/**
 * The WebAssembly implementation when this runtime can run it (and `prefer` is not "js"), else the
 * JavaScript one.
 */
export function createVectorRows(dimensions: number, prefer: "wasm" | "js" = "wasm"): VectorRows {
  const module = prefer === "wasm" ? scanModule() : undefined;
  if (module !== undefined) {
    try {
      return new WasmVectorRows(dimensions, module);
    } catch {
      // An instance's memory could not be had (an address-space limit): JavaScript answers alike.
    }
  }
  return new JsVectorRows(dimensions);
}

/** `similarity-scan.wat`, compiled by `scripts/build-similarity-wasm.ts`. */
export const SIMILARITY_SCAN_WASM =
  "AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcRAgZtZW1vcnkCAARzY2FuAAAKnwEBnAEDA38BewF/IANBAnQhCSAEIAJBAnRqIQUCQANAIAQgBU8NAf0MAAAAAAAAAAAAAAAAAAAAACEIQQAhBwJAA0AgByAJTw0BIAggACAHav0ABAAgASAHav0ABAD95gH95AEhCCAHQRBqIQcMAAsLIAQgCP0fACAI/R8BkiAI/R8CIAj9HwOSkjgCACABIAlqIQEgBEEEaiEEDAALCws=";

const PAGE_BYTES = 65_536;
/** Rows the first allocation holds; it doubles as rows are appended. */
const INITIAL_ROWS = 1_024;

/** The part of the WebAssembly API used here (Node's type declarations leave it out). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: unknown };
}
type WasmModule = { readonly kind?: never };

interface ScanExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  scan(query: number, rows: number, count: number, stride: number, out: number): void;
}

let compiled: WasmModule | null | undefined;

/** The compiled scan, once per process; undefined when this runtime has no WebAssembly or SIMD. */
function scanModule(): WasmModule | undefined {
  if (compiled === undefined) {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      compiled = api === undefined ? null : new api.Module(Buffer.from(SIMILARITY_SCAN_WASM, "base64"));
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

/**
 * Rows in the instance's own memory: the query at 0, then the rows (each padded to a multiple of
 * four floats, so a step never reads past its row), then the output. Growing moves only the
 * output, which holds nothing between calls.
 */
class WasmVectorRows implements VectorRows {
  readonly kind = "wasm";
  count = 0;
  private readonly exports: ScanExports;
  /** Floats per row: `dimensions` rounded up to a multiple of four. */
  private readonly stride: number;
  private readonly rowsAt: number;
  private capacity = 0;
  private floats: Float32Array;

  constructor(
    readonly dimensions: number,
    module: WasmModule,
  ) {
    const api = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    this.exports = new api.Instance(module, {}).exports as ScanExports;
    this.stride = Math.ceil(dimensions / 4) * 4;
    this.rowsAt = this.stride * 4;
    this.floats = new Float32Array(this.exports.memory.buffer);
    this.reserve(INITIAL_ROWS);
  }

  append(vector: Float32Array): void {
    if (this.count === this.capacity) this.reserve(this.capacity * 2);
    const at = (this.rowsAt >> 2) + this.count * this.stride;
    this.floats.set(vector.subarray(0, this.dimensions), at);
    // A grown memory puts new rows where outputs were: their padding lanes must be zero again.
    this.floats.fill(0, at + this.dimensions, at + this.stride);
    this.count++;
  }

  dots(query: Float32Array, from: number, to: number): Float32Array {
    const start = Math.max(0, from);
    const end = Math.min(to, this.count);
    if (end <= start) return new Float32Array(0);
    // The query's padding lanes are zeroed, as every row's are (see `append`).
    this.floats.fill(0, 0, this.stride);
    this.floats.set(query.subarray(0, this.dimensions), 0);
    const outAt = this.outAt();
    this.exports.scan(0, this.rowsAt + start * this.stride * 4, end - start, this.stride, outAt);
    return this.floats.subarray(outAt >> 2, (outAt >> 2) + (end - start));
  }

  private outAt(): number {
    return this.rowsAt + this.capacity * this.stride * 4;
  }

  /** Room for `rows` rows and as many outputs; a grown memory needs a new view. */
  private reserve(rows: number): void {
    const needed = this.rowsAt + rows * this.stride * 4 + rows * 4;
    const memory = this.exports.memory;
    if (needed > memory.buffer.byteLength)
      memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE_BYTES));
    this.capacity = rows;
    this.floats = new Float32Array(memory.buffer);
  }
}

class JsVectorRows implements VectorRows {
  readonly kind = "js";
  count = 0;
  private rows = new Float32Array(0);
  private out = new Float32Array(0);

  constructor(readonly dimensions: number) {}

  append(vector: Float32Array): void {
    const at = this.count * this.dimensions;
    if (at + this.dimensions > this.rows.length) {
      const grown = new Float32Array(Math.max(INITIAL_ROWS, this.count * 2) * this.dimensions);
      grown.set(this.rows);
      this.rows = grown;
    }
    this.rows.set(vector.subarray(0, this.dimensions), at);
    this.count++;
  }

  dots(query: Float32Array, from: number, to: number): Float32Array {
    const start = Math.max(0, from);
    const end = Math.min(to, this.count);
    if (end <= start) return new Float32Array(0);
    if (this.out.length < end - start)
      this.out = new Float32Array(Math.max(end - start, this.out.length * 2));
    const head = query.length === this.dimensions ? query : query.subarray(0, this.dimensions);
    for (let row = start; row < end; row++)
      this.out[row - start] = dot(head, this.rows, row * this.dimensions);
    return this.out.subarray(0, end - start);
  }
}
