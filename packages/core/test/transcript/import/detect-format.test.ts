import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectTranscriptFormat } from "../../../src/transcript/import/detect-format.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const PI_SESSIONS_DIR = process.env.CLEW_PI_SESSIONS_DIR ?? "/work/shared/data/pi-sessions";

function fixtureLines(name: string): string[] {
  return readFileSync(new URL(name, FIXTURES), "utf8").split("\n");
}

describe("detectTranscriptFormat", () => {
  it.each([
    ["pi-v3-session.jsonl", "pi-v3"],
    ["openclaw-v2-session.jsonl", "openclaw"],
    ["clew-session.jsonl", "clew"],
    ["claude-code-session.jsonl", "claude-code"],
    ["claude-code-edge.jsonl", "claude-code"],
  ])("recognizes %s as %s", (name, format) => {
    expect(detectTranscriptFormat(fixtureLines(name)).format).toBe(format);
  });

  it("recognizes the real pi sessions as the older pi format from their first lines", () => {
    for (const name of ["before-compaction.jsonl", "large-session.jsonl"]) {
      const head = readFileSync(path.join(PI_SESSIONS_DIR, name), "utf8").split("\n", 5);
      const detection = detectTranscriptFormat(head);
      expect(detection.format).toBe("pi-legacy");
      expect(detection.evidence).toContain("without ids");
    }
  });

  it("recognizes a version-3 file holding OpenClaw custom entries as OpenClaw", () => {
    const lines = [
      '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}',
      '{"type":"custom","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","customType":"openclaw.cache-ttl","data":{}}',
    ];
    expect(detectTranscriptFormat(lines)).toMatchObject({ format: "openclaw", line: 2 });
  });

  it("skips a broken first line and decides on the next readable one", () => {
    const lines = ["{not json", ...fixtureLines("pi-v3-session.jsonl")];
    expect(detectTranscriptFormat(lines).format).toBe("pi-v3");
  });

  it("names the line and what it held when no format matches", () => {
    const detection = detectTranscriptFormat(["", '{"role":"user","content":"hi"}']);
    expect(detection).toEqual({
      format: "unknown",
      line: 2,
      evidence: expect.stringContaining("line 2 has no type field: expected a session header"),
    });
  });

  it("rejects a header version it does not know", () => {
    const detection = detectTranscriptFormat(['{"type":"session","version":4,"id":"s","timestamp":"t"}']);
    expect(detection).toMatchObject({
      format: "unknown",
      line: 1,
      evidence: expect.stringContaining("newer than 3"),
    });
  });

  it("reports input with no JSON object at all as unknown at its first line", () => {
    expect(detectTranscriptFormat(["", "hello", "[1,2]"])).toMatchObject({ format: "unknown", line: 2 });
    expect(detectTranscriptFormat([])).toMatchObject({ format: "unknown", evidence: "the input is empty" });
  });
});
