import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentMessage, importTranscript, type TranscriptEntry } from "@clew/core";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readTranscriptMessages } from "../src/ingest/read-transcript.js";
import { readVersion3Branch } from "../src/ingest/transcript-branch.js";

let directory = "";
afterAll(async () => {
  if (directory !== "") await rm(directory, { recursive: true, force: true });
});

const ids = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h");
const message = fc.oneof(
  fc.record({ role: fc.constant("user"), content: fc.string(), timestamp: fc.nat() }),
  fc.record({
    role: fc.constant("assistant"),
    content: fc.array(fc.record({ type: fc.constant("text"), text: fc.string() }), { maxLength: 2 }),
    timestamp: fc.nat(),
  }),
  fc.record({ role: fc.constant("assistant"), content: fc.string() }),
);
/** A line of a version-3 transcript: entries of every kind the import meets, and debris. */
const line = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant("message"),
      id: ids,
      parentId: fc.option(ids),
      timestamp: fc.constant("2025-01-01T00:00:01.000Z"),
      message,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ type: fc.constant("message"), id: ids, parentId: fc.option(ids), message }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("message"),
      parentId: fc.option(ids),
      timestamp: fc.constant("2025-01-01T00:00:01.000Z"),
      message,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("custom"),
      id: ids,
      parentId: fc.option(ids),
      timestamp: fc.constant("2025-01-01T00:00:02.000Z"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant("message"),
      id: ids,
      parentId: fc.option(ids),
      timestamp: fc.constant("2025-01-01T00:00:03.000Z"),
      message: fc.string(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", "   ", "[1,2]", '"text"', '{"type":"message","id":"z"', "{not json"),
  },
);

function messageOf(entry: TranscriptEntry): AgentMessage[] {
  if (entry.type !== "message") return [];
  const value = (entry as { message?: unknown }).message;
  return typeof value === "object" && value !== null ? [value as AgentMessage] : [];
}

/**
 * The oracle's own active branch, written here rather than taken from `@clew/core` (whose
 * `parentChain` the code under test uses too, so a fault in it would pass unseen): from the newest
 * entry back along its parents, stopping at a root, a parent that is not there, or an entry met
 * twice; root first.
 */
function branchOf(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const branch: TranscriptEntry[] = [];
  const met = new Set<string>();
  for (let id = entries.at(-1)?.id ?? null; id !== null && !met.has(id); ) {
    const entry = byId.get(id);
    if (entry === undefined) break;
    met.add(id);
    branch.unshift(entry);
    id = entry.parentId;
  }
  return branch;
}

const header = { type: "session", version: 3, id: "s-1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" };

describe("bootstrap's transcript reading", () => {
  it("reads the same messages as the full import's active branch, whatever the lines", async () => {
    directory = await mkdtemp(join(tmpdir(), "clew-lossless-read-property-"));
    let file = 0;
    let fastPath = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 14 }), fc.boolean(), async (lines, torn) => {
        const body = [header, ...lines].map((item) =>
          typeof item === "string" ? item : JSON.stringify(item),
        );
        const text = `${body.join("\n")}${torn ? "" : "\n"}`;
        const path = join(directory, `t${file++}.jsonl`);
        await writeFile(path, text);
        const result = await readTranscriptMessages(path, "s");
        expect(result.ok).toBe(true);
        const imported = importTranscript(text, { sourceName: path, sessionId: "s" });
        const expected = branchOf(imported.entries).flatMap(messageOf);
        expect(result.ok ? result.messages : []).toEqual(expected);
        if ((await readVersion3Branch(path)) !== undefined) fastPath++;
      }),
      { numRuns: 300 },
    );
    // Most files must take the fast path, or the comparison would only test the import with itself.
    expect(fastPath).toBeGreaterThan(100);
  });

  it("reads only what was appended after a watermark, when that continues the branch it read or starts a root", async () => {
    // As hosts write transcripts: ids unique in the file, a parent always written before its child.
    const step = fc.record({
      kind: fc.constantFrom("message", "message", "message", "custom", "debris"),
      parent: fc.oneof(fc.constant("previous"), fc.constant(null), fc.nat(40)),
      message,
    });
    const linesOf = (
      steps: ReadonlyArray<{ kind: string; parent: string | number | null; message: unknown }>,
      from: number,
    ) => {
      const written: string[] = [];
      return steps.map((item, index) => {
        const id = `e${from + index}`;
        if (item.kind === "debris") return "{torn";
        const earlier = from + index;
        const parentId =
          item.parent === null
            ? null
            : item.parent === "previous"
              ? (written.at(-1) ?? (earlier > 0 ? `e${earlier - 1}` : null))
              : `e${(item.parent as number) % Math.max(1, earlier)}`;
        written.push(id);
        const base = { type: item.kind, id, parentId, timestamp: "2025-01-01T00:00:01.000Z" };
        return item.kind === "message" ? { ...base, message: item.message } : base;
      });
    };
    let file = 0;
    let tails = 0;
    const toText = (items: readonly unknown[]) =>
      items.map((item) => `${typeof item === "string" ? item : JSON.stringify(item)}\n`).join("");
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 10 }),
        fc.array(step, { maxLength: 6 }),
        async (before, after) => {
          const path = join(directory, `w${file++}.jsonl`);
          const first = toText([header, ...linesOf(before, 0)]);
          await writeFile(path, first);
          const read = await readTranscriptMessages(path, "s");
          if (!read.ok) throw new Error(read.reason);
          const whole = `${first}${toText(linesOf(after, before.length))}`;
          await writeFile(path, whole);
          const again = await readTranscriptMessages(path, "s", read.watermark);
          if (!again.ok) throw new Error(again.reason);
          const full = branchOf(
            importTranscript(whole, { sourceName: path, sessionId: "s" }).entries,
          ).flatMap(messageOf);
          if (again.tailOnly === true) {
            tails++;
            // The tail continues the branch read before, or starts a new root (whose branch is the
            // tail alone: what was read before stays stored, as nothing leaves the store).
            expect([[...read.messages, ...again.messages], again.messages]).toContainEqual(full);
          } else {
            expect(again.messages).toEqual(full);
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(tails).toBeGreaterThan(50);
  });
});
