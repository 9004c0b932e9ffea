import { describe, expect, it } from "vitest";
import { resolveTranscriptPolicy } from "../../src/pipeline/transcript-policy.js";

describe("resolveTranscriptPolicy", () => {
  it("gives Anthropic strict ids, synthetic results and user-turn merging", () => {
    expect(resolveTranscriptPolicy({ api: "anthropic-messages", provider: "anthropic" })).toEqual({
      toolCallIdMode: "strict",
      repairToolPairing: true,
      syntheticToolResults: true,
      mergeConsecutiveUser: true,
      mergeConsecutiveAssistant: false,
      assistantFirstFix: false,
      dropThinking: false,
    });
  });

  it("gives Google assistant-turn merging and the assistant-first fix", () => {
    for (const api of ["google-generative-ai", "google-vertex"]) {
      const policy = resolveTranscriptPolicy({ api, provider: "google" });
      expect(policy).toMatchObject({
        mergeConsecutiveAssistant: true,
        mergeConsecutiveUser: false,
        assistantFirstFix: true,
        toolCallIdMode: "strict",
        syntheticToolResults: true,
      });
    }
  });

  it("gives OpenAI-compatible completions strict ids, both merges and the assistant-first fix", () => {
    expect(resolveTranscriptPolicy({ api: "openai-completions", provider: "openrouter" })).toMatchObject({
      toolCallIdMode: "strict",
      mergeConsecutiveUser: true,
      mergeConsecutiveAssistant: true,
      assistantFirstFix: true,
      syntheticToolResults: false,
    });
  });

  it("gives the OpenAI Responses family strict ids only", () => {
    for (const api of ["openai-responses", "azure-openai-responses", "openai-codex-responses"]) {
      expect(resolveTranscriptPolicy({ api, provider: "openai" })).toEqual({
        toolCallIdMode: "strict",
        repairToolPairing: true,
        syntheticToolResults: false,
        mergeConsecutiveUser: false,
        mergeConsecutiveAssistant: false,
        assistantFirstFix: false,
        dropThinking: false,
      });
    }
  });

  it("gives Mistral nine-character ids, by provider or by API", () => {
    expect(resolveTranscriptPolicy({ api: "openai-completions", provider: "mistral" }).toolCallIdMode).toBe(
      "strict9",
    );
    expect(resolveTranscriptPolicy({ api: "mistral-conversations", provider: "x" }).toolCallIdMode).toBe(
      "strict9",
    );
  });

  it("repairs pairing only for an unknown API", () => {
    expect(resolveTranscriptPolicy({ api: "some-new-api", provider: "acme" })).toEqual({
      toolCallIdMode: "none",
      repairToolPairing: true,
      syntheticToolResults: false,
      mergeConsecutiveUser: false,
      mergeConsecutiveAssistant: false,
      assistantFirstFix: false,
      dropThinking: false,
    });
  });

  it("returns a fresh object each time, so callers can adjust it safely", () => {
    const first = resolveTranscriptPolicy({ api: "anthropic-messages", provider: "anthropic" });
    first.dropThinking = true;
    expect(resolveTranscriptPolicy({ api: "anthropic-messages", provider: "anthropic" }).dropThinking).toBe(
      false,
    );
  });
});
