/**
 * JSON Schema of the parts of `clew.json` core reads. Unknown top-level sections are allowed
 * (plugins and later features own them); inside known sections, unknown keys are errors, because
 * a misspelt key silently ignored is worse than a clear message.
 */
const positiveInteger = { type: "integer", minimum: 1 } as const;
const nonNegativeInteger = { type: "integer", minimum: 0 } as const;

export const clewConfigSchema = {
  type: "object",
  additionalProperties: true,
  properties: {
    plugins: {
      type: "object",
      additionalProperties: false,
      properties: {
        enabled: { type: "boolean" },
        allow: { type: "array", items: { type: "string" } },
        deny: { type: "array", items: { type: "string" } },
        slots: {
          type: "object",
          additionalProperties: false,
          properties: { contextEngine: { type: "string" }, memory: { type: "string" } },
        },
        entries: {
          type: "object",
          additionalProperties: {
            type: "object",
            additionalProperties: false,
            properties: { enabled: { type: "boolean" }, config: {} },
          },
        },
        load: {
          type: "object",
          additionalProperties: false,
          properties: { paths: { type: "array", items: { type: "string" } } },
        },
      },
    },
    agents: {
      type: "object",
      additionalProperties: true,
      properties: {
        defaults: {
          type: "object",
          additionalProperties: true,
          properties: {
            contextTokens: positiveInteger,
            historyLimit: nonNegativeInteger,
            tokens: {
              type: "object",
              additionalProperties: false,
              properties: {
                counter: { enum: ["estimate", "o200k"] },
                safetyFactor: { type: "number", minimum: 1 },
              },
            },
            contextPruning: {
              type: "object",
              additionalProperties: false,
              properties: {
                mode: { enum: ["off", "cache-ttl"] },
                ttl: { type: ["string", "number"] },
                keepLastAssistants: nonNegativeInteger,
                softTrimRatio: { type: "number", minimum: 0, maximum: 1 },
                hardClearRatio: { type: "number", minimum: 0, maximum: 1 },
                minPrunableToolChars: nonNegativeInteger,
                softTrim: { type: "object" },
                hardClear: { type: "object" },
                tools: { type: "object" },
              },
            },
            compaction: {
              type: "object",
              additionalProperties: true,
              properties: {
                enabled: { type: "boolean" },
                timeoutSeconds: { type: "number", exclusiveMinimum: 0 },
                reserveTokens: nonNegativeInteger,
                keepRecentTokens: positiveInteger,
              },
            },
          },
        },
      },
    },
    session: {
      type: "object",
      additionalProperties: true,
      properties: { fsync: { enum: ["always", "turn", "never"] } },
    },
  },
} as const;
