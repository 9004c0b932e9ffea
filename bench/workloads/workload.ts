/**
 * What a bench cell replays: one of the real pi sessions as recorded, a synthetic session of
 * N messages replayed from both of them (`./scale.ts`), or a quality preset (the quality suite
 * generates its conversation and needle sessions itself, `suites/quality/presets.ts`).
 */
import { InvalidOptionError, isMessageEntry, type NewTranscriptEntry } from "@clew/core";
import { PI_SESSION_FILES, readPiSession } from "./pi-sessions.js";
import { replayMessages } from "./scale.js";

export type WorkloadSpec =
  | { kind: "pi"; file: string }
  | { kind: "synthetic"; messages: number }
  | { kind: "quality"; preset: string };

export interface Workload {
  spec: WorkloadSpec;
  /** Short display name: `pi before-compaction`, `synthetic 10k`. */
  name: string;
  /** Message entries the workload holds. */
  messages: number;
  /** All entries (for pi: every entry type, compactions included); a fresh iterator per call. */
  entries(): Iterable<NewTranscriptEntry>;
}

/** `pi:<file>` or `synthetic:<messages>`; the form cells are named by in JSON and on the CLI. */
export function workloadId(spec: WorkloadSpec): string {
  if (spec.kind === "quality") return `quality:${spec.preset}`;
  return spec.kind === "pi" ? `pi:${spec.file}` : `synthetic:${spec.messages}`;
}

export function workloadName(spec: WorkloadSpec): string {
  if (spec.kind === "pi") return `pi ${spec.file.replace(/\.jsonl$/, "")}`;
  if (spec.kind === "quality") return `preset ${spec.preset}`;
  return `synthetic ${formatCount(spec.messages)}`;
}

/** The default workload set: both pi sessions as recorded, then one synthetic session per size. */
export function defaultWorkloads(sizes: readonly number[]): WorkloadSpec[] {
  return [
    ...PI_SESSION_FILES.map((file): WorkloadSpec => ({ kind: "pi", file })),
    ...sizes.map((messages): WorkloadSpec => ({ kind: "synthetic", messages })),
  ];
}

/**
 * Reads what `spec` needs from `piSessionsDir`. Throws `TranscriptReadError` when a pi session
 * cannot be read and `InvalidOptionError` for a synthetic size that is not a whole number ≥ 1, or
 * for a quality preset (which only the quality suite can run).
 */
export async function loadWorkload(spec: WorkloadSpec, piSessionsDir: string): Promise<Workload> {
  if (spec.kind === "quality") {
    throw new InvalidOptionError(
      "workload",
      workloadId(spec),
      "a pi or synthetic workload (quality presets run in the quality suite)",
    );
  }
  if (spec.kind === "pi") {
    const imported = await readPiSession(spec.file, piSessionsDir);
    const entries = imported.entries as unknown as NewTranscriptEntry[];
    return {
      spec,
      name: workloadName(spec),
      messages: imported.entries.filter(isMessageEntry).length,
      entries: () => entries,
    };
  }
  if (!Number.isInteger(spec.messages) || spec.messages < 1) {
    throw new InvalidOptionError("workload.messages", spec.messages, "a whole number ≥ 1");
  }
  const sources = await Promise.all(PI_SESSION_FILES.map((file) => readPiSession(file, piSessionsDir)));
  const sourceEntries = sources.map((imported) => imported.entries);
  return {
    spec,
    name: workloadName(spec),
    messages: spec.messages,
    entries: () => replayMessages(sourceEntries, spec.messages),
  };
}

/** 10000 → `10k`, 1500 → `1.5k`, 300 → `300`. */
export function formatCount(count: number): string {
  if (count >= 1_000_000 && count % 100_000 === 0) return `${count / 1_000_000}M`;
  if (count >= 1_000 && count % 100 === 0) return `${count / 1_000}k`;
  return String(count);
}
