/**
 * Test helpers that fake model providers at the wire: local HTTP servers speaking the OpenAI Chat
 * Completions, OpenAI Responses and Anthropic Messages streaming protocols. Import from
 * `@clew/agent/testing`.
 */
export * from "./fake-providers/index.js";
