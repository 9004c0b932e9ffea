/**
 * JSON Schema of the parts of `clew.json` core reads. Unknown top-level sections are allowed
 * (plugins and later features own them); inside known sections, unknown keys are errors, because
 * a misspelt key silently ignored is worse than a clear message.
 */
const positiveInteger = { type: "integer", minimum: 1 } as const;
const nonNegativeInteger = { type: "integer", minimum: 0 } as const;
const modelRef = { type: "string", pattern: "^[^/\\s]+/\\S+$" } as const;
const price = { type: "number", minimum: 0 } as const;

const modelsSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    providers: {
      type: "object",
      propertyNames: { pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" },
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        properties: {
          api: {
            enum: ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"],
          },
          baseUrl: { type: "string", pattern: "^https?://" },
          apiKeyEnv: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
          headers: { type: "object", additionalProperties: { type: "string" } },
          models: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["id"],
              properties: {
                id: { type: "string", minLength: 1 },
                name: { type: "string" },
                contextWindow: positiveInteger,
                maxTokens: positiveInteger,
                reasoning: { type: "boolean" },
                input: { type: "array", minItems: 1, items: { enum: ["text", "image"] } },
                cost: {
                  type: "object",
                  additionalProperties: false,
                  required: ["input", "output"],
                  properties: { input: price, output: price, cacheRead: price, cacheWrite: price },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

export const clewConfigSchema = {
  type: "object",
  additionalProperties: true,
  properties: {
    models: modelsSchema,
    cliBackends: {
      type: "object",
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        required: ["command"],
        properties: {
          command: { type: "string", minLength: 1 },
          args: { type: "array", items: { type: "string" } },
          timeoutMs: positiveInteger,
          capabilities: { type: "array", items: { type: "string" } },
        },
      },
    },
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
        list: {
          type: "object",
          additionalProperties: {
            type: "object",
            additionalProperties: true,
            properties: { model: modelRef },
          },
        },
        defaults: {
          type: "object",
          additionalProperties: true,
          properties: {
            model: modelRef,
            contextTokens: positiveInteger,
            historyLimit: nonNegativeInteger,
            bootstrapMaxChars: positiveInteger,
            bootstrapTotalMaxChars: positiveInteger,
            bootstrapPromptTruncationWarning: { enum: ["off", "once", "always"] },
            userTimezone: { type: "string", minLength: 1 },
            maxStepsPerTurn: positiveInteger,
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
                model: modelRef,
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
