/**
 * JSON Schema (draft-07) of the `/context json` output, `{ report, session }`. `report` is core's
 * `contextRunReportSchema` (one source for the report's shape); `session` is described here.
 * Every object is closed (`additionalProperties: false`), so a field added to either type without
 * its line in the schema fails the tests that validate real output against this document.
 */
import { contextRunReportSchema } from "@clew/core";

const count = { type: "integer", minimum: 0 } as const;
const nullableCount = { anyOf: [count, { type: "null" }] } as const;

/** The report schema without its root-only `$schema` keyword, so it can sit under a property. */
const { $schema: _reportDialect, ...reportSchema } = contextRunReportSchema;

const sessionSchema = {
  type: "object",
  additionalProperties: false,
  required: ["totalTokens", "inputTokens", "outputTokens", "contextTokens"],
  properties: {
    totalTokens: {
      ...nullableCount,
      description: "Prompt tokens of the session's latest run (sessions index); null when unknown.",
    },
    inputTokens: { ...nullableCount, description: "Input tokens the session has used so far." },
    outputTokens: { ...nullableCount, description: "Output tokens the session has used so far." },
    contextTokens: { ...count, description: "The context window of the session's model." },
  },
} as const;

/** The schema document; pass it to any draft-07 validator (Ajv's default). */
export const contextJsonSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "urn:clew:schema:context-json:1",
  title: "Clew /context json",
  description:
    "The latest run report of a session (source run) or an on-demand estimate (source estimate), " +
    "and the session's token figures. Sizes are characters; token figures are integers.",
  type: "object",
  additionalProperties: false,
  required: ["report", "session"],
  properties: { report: reportSchema, session: sessionSchema },
} as const;
