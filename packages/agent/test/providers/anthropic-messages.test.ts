import { type FakeProvider, startFakeProvider } from "@clew/agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { callModel } from "../../src/providers/call-model.js";
import { READ_TOOL, resolveFake, toolRound, userMessage } from "./helpers.js";
import { describeProtocol } from "./protocol-suite.js";

describeProtocol("anthropic-messages", {
  toolCallId: "call_7",
  overflowText: "prompt is too long: 210000 tokens > 200000 maximum",
});

describe("anthropic-messages request", () => {
  let fake: FakeProvider | undefined;
  afterEach(async () => {
    await fake?.close();
  });

  it("sends the system prompt, the messages with a tool round and the tool schemas", async () => {
    fake = await startFakeProvider({ protocol: "anthropic-messages", script: () => ({ text: "ok" }) });
    const resolved = resolveFake(fake);
    await callModel(resolved, {
      systemPrompt: "You are Clew.",
      messages: [userMessage("What port?"), ...toolRound(resolved, "toolu_1"), userMessage("Thanks")],
      tools: [READ_TOOL],
    });

    const recorded = fake.requests[0];
    expect(recorded?.path).toBe("/v1/messages");
    expect(recorded?.headers["x-api-key"]).toBe("clew-no-key");
    const body = recorded?.body as Record<string, unknown>;
    expect({
      model: body.model,
      stream: body.stream,
      max_tokens: body.max_tokens,
      system: body.system,
      messages: body.messages,
      tools: body.tools,
    }).toMatchInlineSnapshot(`
      {
        "max_tokens": 256,
        "messages": [
          {
            "content": "What port?",
            "role": "user",
          },
          {
            "content": [
              {
                "id": "toolu_1",
                "input": {
                  "path": "notes.txt",
                },
                "name": "read_file",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "port=8080",
                "is_error": false,
                "tool_use_id": "toolu_1",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "cache_control": {
                  "type": "ephemeral",
                },
                "text": "Thanks",
                "type": "text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "fake-model",
        "stream": true,
        "system": [
          {
            "cache_control": {
              "type": "ephemeral",
            },
            "text": "You are Clew.",
            "type": "text",
          },
        ],
        "tools": [
          {
            "cache_control": {
              "type": "ephemeral",
            },
            "description": "Read a file from the workspace.",
            "eager_input_streaming": true,
            "input_schema": {
              "properties": {
                "path": {
                  "description": "Relative path",
                  "type": "string",
                },
              },
              "required": [
                "path",
              ],
              "type": "object",
            },
            "name": "read_file",
          },
        ],
      }
    `);
  });
});
