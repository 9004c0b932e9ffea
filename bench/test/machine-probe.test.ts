import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type MachineProbe, machineProbeNotes, probeMachine } from "../metrics/machine-probe.js";

const probe = (cpuMs: number, writeMicros: number, freshMemoryMs: number): MachineProbe => ({
  cpuMs,
  writeMicros,
  freshMemoryMs,
});

describe("machine probe", () => {
  it("times each part and leaves no file behind", async () => {
    const directory = await mkdtemp(join(tmpdir(), "clew-machine-probe-"));
    try {
      const measured = probeMachine(directory);
      for (const value of Object.values(measured)) {
        expect(Number.isFinite(value)).toBe(true);
        expect(value).toBeGreaterThan(0);
      }
      expect(await readdir(directory)).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("gives each part's range and names the cells whose slower probe was 1.3× the run's best", () => {
    const notes = machineProbeNotes([
      { name: "legacy 1k", probes: { start: probe(10, 4, 20), end: probe(11, 4.4, 21) } },
      { name: "lossless 50k", probes: { start: probe(10.5, 4.2, 20), end: probe(14, 9, 22) } },
      { name: "old result without probes" },
    ]);
    expect(notes).toEqual([
      "machine probe at the start and end of each cell: CPU 10–14 ms, writes 4.0–9.0 µs per 4 KB, fresh memory 20–22 ms",
      "cells that ran on a slower machine (a probe ≥ 1.3× the run's best): lossless 50k (CPU ×1.4, writes ×2.3)",
    ]);
  });

  it("says so when no cell ran slow, and says nothing without probes", () => {
    const steady = { start: probe(10, 4, 20), end: probe(12, 5, 24) };
    expect(machineProbeNotes([{ name: "a", probes: steady }])[1]).toBe(
      "no cell ran on a machine 1.3× slower than the run's best probe",
    );
    expect(machineProbeNotes([{ name: "a" }])).toEqual([]);
  });
});
