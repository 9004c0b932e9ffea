/**
 * The embedder seam: turns texts into vectors whose dot product says how close two texts are in
 * meaning. Recall fuses the nearest messages by meaning with the full-text lists, so a question
 * can find a message it shares no word with ("Which novel is she reading?" and "I am halfway
 * through Piranesi").
 *
 * Contract, for every implementation:
 * - `embed` returns one vector per text, in order, each of `dimensions` finite numbers. It may
 *   return vectors of any length; `embedChecked` normalizes them to unit length.
 * - The same `id` always maps the same text to the same vector: vectors made under one id are kept
 *   and compared with later ones, so an implementation that changes its output changes its id.
 * - It may throw or reject (a missing model file, a worker gone): callers treat that as data and
 *   search by words alone; an embedder never decides whether a turn runs.
 * - It never reaches the network on its own: whatever it needs is local, named in its options.
 * - No cancellation: calls are short and bounded by the caller's batch size.
 */

export interface TextEmbedder {
  /** Names the model and its version; vectors under different ids are never compared. */
  readonly id: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Why a batch has no vectors: the embedder threw, or broke the contract. */
export class EmbedderError extends Error {
  override readonly name = "EmbedderError";
  constructor(
    readonly embedderId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`Embedder ${embedderId}: ${message}`, options);
  }
}

/**
 * The embedder's vectors for `texts`, checked and scaled to unit length (a zero vector, for a
 * text the embedder knows nothing of, stays zero and matches nothing).
 * @throws EmbedderError when the embedder fails or its answer breaks the contract.
 */
export async function embedChecked(
  embedder: TextEmbedder,
  texts: readonly string[],
): Promise<Float32Array[]> {
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed(texts);
  } catch (error) {
    throw new EmbedderError(
      embedder.id,
      `failed: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw new EmbedderError(
      embedder.id,
      `returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts`,
    );
  }
  return vectors.map((vector, index) => unitVector(embedder, vector, index));
}

function unitVector(embedder: TextEmbedder, vector: Float32Array, index: number): Float32Array {
  if (!(vector instanceof Float32Array) || vector.length !== embedder.dimensions) {
    throw new EmbedderError(
      embedder.id,
      `vector ${index} has ${vector?.length ?? "no"} dimensions, expected ${embedder.dimensions}`,
    );
  }
  let sum = 0;
  for (const value of vector) {
    if (!Number.isFinite(value)) throw new EmbedderError(embedder.id, `vector ${index} holds ${value}`);
    sum += value * value;
  }
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  const unit = new Float32Array(vector.length);
  for (let dimension = 0; dimension < vector.length; dimension++)
    unit[dimension] = (vector[dimension] ?? 0) * scale;
  return unit;
}
