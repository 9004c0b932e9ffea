import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import {
  buildRunReport,
  buildSystemPrompt,
  type ContextRunReport,
  charEstimateTokenCounter,
  contextRunReportSchema,
  truncateWorkspaceFiles,
} from "../../src/index.js";
import { assistant, call, result, text, user } from "../pipeline/builders.js";
import { NOW, promptInput, skills, tools } from "../prompt/prompt-fixtures.js";

const validate = new Ajv({ allErrors: true, strict: true }).compile(contextRunReportSchema);

function sampleReport(source: "run" | "estimate", withIdentity: boolean): ContextRunReport {
  const workspaceFiles = truncateWorkspaceFiles(
    [
      { name: "AGENTS.md", path: "/w/AGENTS.md", missing: false, content: "a".repeat(5_000) },
      { name: "SOUL.md", path: "/w/SOUL.md", missing: true },
    ],
    { maxChars: 2_000, totalMaxChars: 60_000 },
  );
  const prompt = buildSystemPrompt(promptInput({ files: workspaceFiles.files }));
  return buildRunReport({
    source,
    now: NOW,
    prompt,
    workspaceFiles,
    skills,
    tools,
    messages: [user("hi"), assistant([text("ok"), call("c1")]), result("c1")],
    counter: charEstimateTokenCounter,
    window: 128_000,
    ...(withIdentity
      ? {
          sessionId: "s",
          sessionKey: "k",
          provider: "p",
          model: "m",
          workspaceDir: "/w",
          engine: { configured: "legacy", effective: "legacy" },
          contextTokens: 900,
          compactions: 1,
          engineAddition: "addition",
        }
      : {}),
  });
}

function errorsOf(report: unknown): string[] {
  return validate(report)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

describe("contextRunReportSchema", () => {
  it("accepts built run and estimate reports, with and without the optional fields", () => {
    for (const source of ["run", "estimate"] as const) {
      for (const withIdentity of [true, false]) {
        expect(errorsOf(sampleReport(source, withIdentity))).toEqual([]);
      }
    }
  });

  it("accepts a report after a JSON round trip, as stored in the sessions index", () => {
    expect(errorsOf(JSON.parse(JSON.stringify(sampleReport("run", true))))).toEqual([]);
  });

  it("rejects unknown keys, wrong statuses and a missing section", () => {
    const report = sampleReport("run", true);
    expect(errorsOf({ ...report, extra: 1 })).toContain(" must NOT have additional properties");
    const badFile = { ...report.injectedWorkspaceFiles[0], status: "PARTIAL" };
    expect(errorsOf({ ...report, injectedWorkspaceFiles: [badFile] }).join("\n")).toMatch(
      /\/injectedWorkspaceFiles\/0\/status must be equal to one of the allowed values/,
    );
    const { history: _history, ...withoutHistory } = report;
    expect(errorsOf(withoutHistory).join("\n")).toMatch(/must have required property 'history'/);
    expect(errorsOf({ ...report, schemaVersion: 2 }).join("\n")).toMatch(
      /\/schemaVersion must be equal to constant/,
    );
    const badHash = { ...report, systemPrompt: { ...report.systemPrompt, hash: "abc" } };
    expect(errorsOf(badHash).join("\n")).toMatch(/\/systemPrompt\/hash must match pattern/);
  });
});
