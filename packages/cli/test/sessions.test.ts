import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCliHarness, PI_SESSIONS_DIR } from "./cli-harness.js";

let cli: Awaited<ReturnType<typeof createCliHarness>>;
beforeEach(async () => {
  cli = await createCliHarness();
});
afterEach(async () => {
  await cli.cleanup();
});

describe("clew sessions", () => {
  it("imports a real pi session with every message, tool call and tool result", async () => {
    const result = await cli.run(
      "sessions",
      "import",
      join(PI_SESSIONS_DIR, "before-compaction.jsonl"),
      "--json",
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ format: "pi-legacy", messages: 990, toolResults: 448 });
    expect(summary.toolCalls).toBeGreaterThanOrEqual(448);

    const shown = await cli.run("sessions", "show", summary.sessionKey, "--json");
    const description = JSON.parse(shown.stdout);
    expect(description.counts).toMatchObject({
      "message:user": 55,
      "message:assistant": 484,
      "message:toolResult": 448,
      "message:bashExecution": 3,
      compaction: 2,
    });
    expect(description.loadIssues).toEqual([]);
  });

  it("lists imported sessions and shows one by id in text", async () => {
    await cli.run("sessions", "import", join(PI_SESSIONS_DIR, "large-session.jsonl"));
    const listed = await cli.run("sessions", "list");
    expect(listed.code).toBe(0);
    const sessionId = listed.stdout.split(/\s+/)[0] ?? "";
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const shown = await cli.run("sessions", "show", sessionId, "--limit", "2");
    expect(shown.stdout).toContain("453 message:assistant");
    expect(
      shown.stdout
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("[")).length,
    ).toBe(2);
  });

  it("exports a session that imports back to the same entries", async () => {
    const imported = JSON.parse(
      (await cli.run("sessions", "import", join(PI_SESSIONS_DIR, "large-session.jsonl"), "--json")).stdout,
    );
    const out = join(cli.home, "export.jsonl");
    const exported = await cli.run("sessions", "export", imported.sessionId, "--out", out);
    expect(exported.code).toBe(0);
    const again = await cli.run("sessions", "import", out, "--session-id", "copy-1", "--json");
    expect(JSON.parse(again.stdout)).toMatchObject({ format: "pi-v3", messages: 914 });
    const second = join(cli.home, "export-2.jsonl");
    await cli.run("sessions", "export", "copy-1", "--out", second);
    const [first, copy] = [await readFile(out, "utf8"), await readFile(second, "utf8")];
    const withoutHeader = (text: string) => text.split("\n").slice(1).join("\n");
    expect(withoutHeader(copy)).toBe(withoutHeader(first));
  });

  it("exports markdown and openai messages", async () => {
    const imported = JSON.parse(
      (await cli.run("sessions", "import", join(PI_SESSIONS_DIR, "large-session.jsonl"), "--json")).stdout,
    );
    const markdown = await cli.run("sessions", "export", imported.sessionId, "--format", "markdown");
    expect(markdown.stdout.length).toBeGreaterThan(1000);
    const openai = JSON.parse(
      (await cli.run("sessions", "export", imported.sessionId, "--format", "openai-messages")).stdout,
    );
    expect(Array.isArray(openai)).toBe(true);
    expect(openai.some((message: { role: string }) => message.role === "tool")).toBe(true);
  });

  it("refuses to import the same session twice without a new id", async () => {
    const file = join(PI_SESSIONS_DIR, "large-session.jsonl");
    expect((await cli.run("sessions", "import", file)).code).toBe(0);
    const second = await cli.run("sessions", "import", file);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("already exists");
  });

  it("names the file and line of a transcript it cannot read", async () => {
    const file = join(cli.home, "broken.jsonl");
    await writeFile(file, "not json\nstill not json\n");
    const result = await cli.run("sessions", "import", file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:1`);
  });

  it("reports a missing file and an unknown session clearly", async () => {
    const missing = await cli.run("sessions", "import", "nope.jsonl");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file");
    const unknown = await cli.run("sessions", "show", "does-not-exist");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown session "does-not-exist"');
  });

  it("rejects an unknown export format", async () => {
    const result = await cli.run("sessions", "export", "x", "--format", "yaml");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown format "yaml"');
  });

  it("runs as a real command through its bin script", async () => {
    const bin = join(import.meta.dirname, "../bin/clew.mjs");
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "sessions", "list"], {
      env: { ...process.env, CLEW_HOME: cli.home },
    });
    expect(stdout).toBe("No sessions for agent main.\n");
  });
});
