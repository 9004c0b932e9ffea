/**
 * A fixed piece of work timed on the machine at hand, so that a run's figures can be read against
 * how fast the machine was while they were taken. On a shared machine whole cells run 50–100 %
 * slower at times, more than most changes the bench is meant to show, and a cell run again a
 * minute later is quick once more. Each part stands for what the engine cells spend their time on:
 * - CPU: canonical-style JSON and a hash of it, as every stored message costs;
 * - small writes: 4 KB writes to a file without a sync, as a WAL commit is tens of them;
 * - fresh memory: touching pages never used before, as a heap that grows during an import does.
 * The probe takes well under a second; its figures are only comparable within one machine.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface MachineProbe {
  /** Milliseconds for `CPU_ROUNDS` rounds of stringify-and-hash of a 2 KB object. */
  cpuMs: number;
  /** Microseconds per 4 KB write, over `WRITES` writes. */
  writeMicros: number;
  /** Milliseconds to allocate and touch `FRESH_MEGABYTES` of memory. */
  freshMemoryMs: number;
}

const CPU_ROUNDS = 2_000;
const WRITES = 512;
const WRITE_BYTES = 4_096;
const FRESH_MEGABYTES = 32;
/** Each part is run this many times and the median kept: one preempted run says little. */
const REPEATS = 3;

/** Runs the probe; writes (and removes) one scratch file in `directory`. */
export function probeMachine(directory: string): MachineProbe {
  return {
    cpuMs: median(REPEATS, cpuRound),
    writeMicros: median(REPEATS, () => smallWrites(join(directory, "machine-probe.bin"))),
    freshMemoryMs: median(REPEATS, touchFreshMemory),
  };
}

const PROBE_OBJECT = {
  role: "toolResult",
  toolCallId: "call_probe",
  content: [{ type: "text", text: "export const probe = 1;\n".repeat(80) }],
  timestamp: 1_700_000_000_000,
};

function cpuRound(): number {
  const started = performance.now();
  for (let round = 0; round < CPU_ROUNDS; round++) {
    const json = JSON.stringify({ ...PROBE_OBJECT, timestamp: PROBE_OBJECT.timestamp + round });
    createHash("sha256").update(json).digest("hex");
  }
  return performance.now() - started;
}

function smallWrites(path: string): number {
  const block = Buffer.alloc(WRITE_BYTES, 7);
  const descriptor = openSync(path, "w");
  try {
    const started = performance.now();
    for (let write = 0; write < WRITES; write++)
      writeSync(descriptor, block, 0, WRITE_BYTES, write * WRITE_BYTES);
    return ((performance.now() - started) * 1_000) / WRITES;
  } finally {
    closeSync(descriptor);
    rmSync(path, { force: true });
  }
}

function touchFreshMemory(): number {
  const started = performance.now();
  // allocUnsafe takes pages without touching them; fill touches every one.
  Buffer.allocUnsafe(FRESH_MEGABYTES * 1_048_576).fill(1);
  return performance.now() - started;
}

function median(repeats: number, measure: () => number): number {
  const values = Array.from({ length: repeats }, measure).sort((left, right) => left - right);
  return values[Math.floor(values.length / 2)] as number;
}

/** A cell's probes: at its start and at its end. */
export interface CellProbes {
  start: MachineProbe;
  end: MachineProbe;
}

/** A probe part's ratio to the run's best from which a cell is said to have run slow. */
export const SLOW_RATIO = 1.3;

const PARTS: ReadonlyArray<{ key: keyof MachineProbe; name: string }> = [
  { key: "cpuMs", name: "CPU" },
  { key: "writeMicros", name: "writes" },
  { key: "freshMemoryMs", name: "fresh memory" },
];

/**
 * Lines for a run's notes: each part's range over every probe of the run, and the cells whose
 * slower probe (start or end) was at least `SLOW_RATIO` times the run's best in some part, with
 * those parts' ratios. Nothing when no cell has probes.
 */
export function machineProbeNotes(cells: ReadonlyArray<{ name: string; probes?: CellProbes }>): string[] {
  const probed = cells.filter(
    (cell): cell is { name: string; probes: CellProbes } => cell.probes !== undefined,
  );
  if (probed.length === 0) return [];
  const all = probed.flatMap((cell) => [cell.probes.start, cell.probes.end]);
  const best = (key: keyof MachineProbe) => Math.min(...all.map((probe) => probe[key]));
  const ranges = PARTS.map(({ key, name }) => {
    const values = all.map((probe) => probe[key]);
    const unit = key === "writeMicros" ? " µs per 4 KB" : " ms";
    return `${name} ${round(Math.min(...values))}–${round(Math.max(...values))}${unit}`;
  });
  const slow = probed.flatMap((cell) => {
    const ratios = PARTS.flatMap(({ key, name }) => {
      const ratio = Math.max(cell.probes.start[key], cell.probes.end[key]) / best(key);
      return ratio >= SLOW_RATIO ? [`${name} ×${ratio.toFixed(1)}`] : [];
    });
    return ratios.length === 0 ? [] : [`${cell.name} (${ratios.join(", ")})`];
  });
  return [
    `machine probe at the start and end of each cell: ${ranges.join(", ")}`,
    slow.length === 0
      ? `no cell ran on a machine ${SLOW_RATIO}× slower than the run's best probe`
      : `cells that ran on a slower machine (a probe ≥ ${SLOW_RATIO}× the run's best): ${slow.join("; ")}`,
  ];
}

function round(value: number): string {
  return value >= 10 ? value.toFixed(0) : value.toFixed(1);
}
