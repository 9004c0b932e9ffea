/**
 * JSON Schema (draft-07) of the `/context json` output, `{ report, session }`. Objects are closed
 * (`additionalProperties: false`) so the schema and `ContextRunReport` cannot drift apart
 * unnoticed: a field added to the report needs its line here, and the test suite validates real
 * output against this document. Sizes are characters; tokens are integers.
 */

const count = { type: "integer", minimum: 0 } as const;
const nullableCount = { anyOf: [count, { type: "null" }] } as const;
const text = { type: "string" } as const;

function closedObject(properties: Record<string, unknown>, optional: readonly string[] = []) {
  return {
    type: "object",
    additionalProperties: false,
    required: Object.keys(properties).filter((key) => !optional.includes(key)),
    properties,
  };
}

const historyBreakdown = closedObject({
  user: count,
  assistant: count,
  toolResults: count,
  summaries: count,
  other: count,
});

const reportSchema = closedObject(
  {
    schemaVersion: { const: 1, description: "Bumped on any incompatible change." },
    source: {
      enum: ["run", "estimate"],
      description: "run: captured on a model run; estimate: computed on demand.",
    },
    generatedAt: { ...count, description: "Epoch milliseconds." },
    sessionId: text,
    sessionKey: text,
    provider: text,
    model: text,
    workspaceDir: text,
    engine: closedObject({ configured: text, effective: text }),
    bootstrap: closedObject({
      maxChars: count,
      totalMaxChars: count,
      warningMode: { enum: ["off", "once", "always"] },
      warningShown: { type: "boolean" },
      truncatedFiles: count,
    }),
    systemPrompt: closedObject({
      chars: count,
      projectContextChars: count,
      nonProjectContextChars: count,
      sections: { type: "array", items: closedObject({ name: text, chars: count }) },
      engineAdditionChars: count,
      hash: { type: "string", description: "sha256 of the whole system prompt, hex." },
    }),
    injectedWorkspaceFiles: {
      type: "array",
      items: closedObject({
        name: text,
        path: text,
        status: { enum: ["OK", "TRUNCATED", "MISSING"] },
        rawChars: count,
        injectedChars: count,
      }),
    },
    skills: closedObject({
      promptChars: count,
      entries: {
        type: "array",
        items: closedObject({ name: text, description: text, location: text, blockChars: count }),
      },
    }),
    tools: closedObject({
      listChars: count,
      schemaChars: count,
      entries: {
        type: "array",
        items: closedObject({
          name: text,
          summaryChars: count,
          schemaChars: count,
          propertiesCount: nullableCount,
        }),
      },
    }),
    history: closedObject({
      messages: count,
      chars: historyBreakdown,
      tokens: { ...historyBreakdown, description: "Counted with the session's token counter." },
    }),
    session: closedObject({
      contextTokens: {
        ...nullableCount,
        description: "Prompt tokens the provider reported for the run's last call.",
      },
      window: count,
      compactions: count,
    }),
  },
  ["sessionId", "sessionKey", "provider", "model", "workspaceDir", "engine"],
);

const sessionSchema = closedObject({
  totalTokens: {
    ...nullableCount,
    description: "Prompt tokens of the session's latest run; null when unknown.",
  },
  inputTokens: nullableCount,
  outputTokens: nullableCount,
  contextTokens: { ...count, description: "The context window of the session's model." },
});

/** The schema document; pass it to any draft-07 validator (Ajv's default). */
export const contextJsonSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "urn:clew:schema:context-json:1",
  title: "Clew /context json",
  description: "The latest run report of a session (or an estimate) and the session's token figures.",
  ...closedObject({ report: reportSchema, session: sessionSchema }),
} as const;
