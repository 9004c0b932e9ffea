import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import {
  type ContextJsonSession,
  contextJsonSchema,
  formatContextJson,
} from "../../src/context-report/index.js";
import { sampleEstimateReport, sampleRunReport } from "./fixtures.js";

const session: ContextJsonSession = {
  totalTokens: 52_418,
  inputTokens: 1_204_118,
  outputTokens: 48_210,
  contextTokens: 200_000,
};

// Ajv's default (strict) mode also checks the schema document itself.
const validate = new Ajv({ allErrors: true }).compile(contextJsonSchema);

describe("/context json", () => {
  it("prints { report, session } indented by two spaces", () => {
    const report = sampleRunReport();
    const text = formatContextJson(report, session);
    expect(text).toBe(JSON.stringify({ report, session }, null, 2));
    expect(JSON.parse(text)).toEqual({ report, session });
  });

  it("validates against the published schema for a run report", () => {
    const document = JSON.parse(formatContextJson(sampleRunReport({ engineAdditionChars: 1_840 }), session));
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
  });

  it("validates an estimate without optional report fields and with unknown session figures", () => {
    const unknown: ContextJsonSession = {
      totalTokens: null,
      inputTokens: null,
      outputTokens: null,
      contextTokens: 128_000,
    };
    const document = JSON.parse(formatContextJson(sampleEstimateReport(), unknown));
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
  });

  it("rejects a document whose file status is not one of OK, TRUNCATED, MISSING", () => {
    const document = JSON.parse(formatContextJson(sampleRunReport(), session));
    document.report.injectedWorkspaceFiles[0].status = "PARTIAL";
    expect(validate(document)).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/report/injectedWorkspaceFiles/0/status");
  });

  it("rejects a field the schema does not describe, so the schema cannot drift from the type", () => {
    const document = JSON.parse(formatContextJson(sampleRunReport(), session));
    document.report.tools.entries[2].schemaHash = "abc";
    expect(validate(document)).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({
      instancePath: "/report/tools/entries/2",
      keyword: "additionalProperties",
    });
  });

  it("rejects a document without the session figures", () => {
    const document = JSON.parse(formatContextJson(sampleRunReport(), session));
    delete document.session;
    expect(validate(document)).toBe(false);
  });
});
