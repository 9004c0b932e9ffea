/**
 * JSON Schema (draft-07) of `ContextRunReport`, for checking stored reports before `/context`
 * reads them and for consumers in other languages. Strict: unknown keys are errors everywhere, so
 * a report written by a newer, incompatible version fails loudly instead of being half-read. Keep
 * it in step with `run-report.ts`.
 */
const count = { type: "integer", minimum: 0 } as const;
const text = { type: "string" } as const;

const historyBreakdown = {
  type: "object",
  additionalProperties: false,
  required: ["user", "assistant", "toolResults", "summaries", "other"],
  properties: { user: count, assistant: count, toolResults: count, summaries: count, other: count },
} as const;

const bootstrap = {
  type: "object",
  additionalProperties: false,
  required: ["maxChars", "totalMaxChars", "warningMode", "warningShown", "truncatedFiles"],
  properties: {
    maxChars: { type: "integer", minimum: 1 },
    totalMaxChars: { type: "integer", minimum: 1 },
    warningMode: { enum: ["off", "once", "always"] },
    warningShown: { type: "boolean" },
    truncatedFiles: count,
  },
} as const;

const systemPrompt = {
  type: "object",
  additionalProperties: false,
  required: [
    "chars",
    "projectContextChars",
    "nonProjectContextChars",
    "sections",
    "engineAdditionChars",
    "hash",
  ],
  properties: {
    chars: count,
    projectContextChars: count,
    nonProjectContextChars: count,
    sections: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "chars"],
        properties: { name: text, chars: count },
      },
    },
    engineAdditionChars: count,
    hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
  },
} as const;

const injectedWorkspaceFiles = {
  type: "array",
  items: {
    type: "object",
    additionalProperties: false,
    required: ["name", "path", "status", "rawChars", "injectedChars"],
    properties: {
      name: text,
      path: text,
      status: { enum: ["OK", "TRUNCATED", "MISSING"] },
      rawChars: count,
      injectedChars: count,
      causes: { type: "array", items: { enum: ["per-file-limit", "total-limit"] }, uniqueItems: true },
    },
  },
} as const;

const skills = {
  type: "object",
  additionalProperties: false,
  required: ["promptChars", "entries"],
  properties: {
    promptChars: count,
    entries: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "description", "location", "blockChars"],
        properties: { name: text, description: text, location: text, blockChars: count },
      },
    },
  },
} as const;

const tools = {
  type: "object",
  additionalProperties: false,
  required: ["listChars", "schemaChars", "entries"],
  properties: {
    listChars: count,
    schemaChars: count,
    entries: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "summaryChars", "schemaChars", "propertiesCount"],
        properties: {
          name: text,
          summaryChars: count,
          schemaChars: count,
          propertiesCount: { anyOf: [count, { type: "null" }] },
        },
      },
    },
  },
} as const;

const history = {
  type: "object",
  additionalProperties: false,
  required: ["messages", "chars", "tokens"],
  properties: { messages: count, chars: historyBreakdown, tokens: historyBreakdown, counter: text },
} as const;

const session = {
  type: "object",
  additionalProperties: false,
  required: ["contextTokens", "window", "compactions"],
  properties: {
    contextTokens: { anyOf: [count, { type: "null" }] },
    window: { type: "integer", minimum: 1 },
    compactions: count,
  },
} as const;

export const contextRunReportSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "ContextRunReport",
  type: "object",
  additionalProperties: false,
  required: [
    "schemaVersion",
    "source",
    "generatedAt",
    "bootstrap",
    "systemPrompt",
    "injectedWorkspaceFiles",
    "skills",
    "tools",
    "history",
    "session",
  ],
  properties: {
    schemaVersion: { const: 1 },
    source: { enum: ["run", "estimate"] },
    generatedAt: count,
    sessionId: text,
    sessionKey: text,
    provider: text,
    model: text,
    workspaceDir: text,
    engine: {
      type: "object",
      additionalProperties: false,
      required: ["configured", "effective"],
      properties: { configured: text, effective: text },
    },
    bootstrap,
    systemPrompt,
    injectedWorkspaceFiles,
    skills,
    tools,
    history,
    session,
  },
} as const;
