import { type FakeProvider, startFakeProvider } from "@clew/agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { callModel } from "../../src/providers/call-model.js";
import { READ_TOOL, resolveFake, toolRound, userMessage } from "./helpers.js";
import { describeProtocol } from "./protocol-suite.js";

describeProtocol("openai-completions", {
  toolCallId: "call_7",
  overflowText: "maximum context length is 128000 tokens",
});

describe("openai-completions request", () => {
  let fake: FakeProvider | undefined;
  afterEach(async () => {
    await fake?.close();
  });

  it("sends the system prompt, the messages with a tool round and the tool schemas", async () => {
    fake = await startFakeProvider({ protocol: "openai-completions", script: () => ({ text: "ok" }) });
    const resolved = resolveFake(fake);
    await callModel(resolved, {
      systemPrompt: "You are Clew.",
      messages: [userMessage("What port?"), ...toolRound(resolved, "call_1"), userMessage("Thanks")],
      tools: [READ_TOOL],
    });

    const recorded = fake.requests[0];
    expect(recorded?.path).toBe("/v1/chat/completions");
    const body = recorded?.body as Record<string, unknown>;
    expect({
      model: body.model,
      stream: body.stream,
      stream_options: body.stream_options,
      messages: body.messages,
      tools: body.tools,
    }).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "You are Clew.",
            "role": "system",
          },
          {
            "content": "What port?",
            "role": "user",
          },
          {
            "content": null,
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"path":"notes.txt"}",
                  "name": "read_file",
                },
                "id": "call_1",
                "type": "function",
              },
            ],
          },
          {
            "content": "port=8080",
            "role": "tool",
            "tool_call_id": "call_1",
          },
          {
            "content": "Thanks",
            "role": "user",
          },
        ],
        "model": "fake-model",
        "stream": true,
        "stream_options": {
          "include_usage": true,
        },
        "tools": [
          {
            "function": {
              "description": "Read a file from the workspace.",
              "name": "read_file",
              "parameters": {
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
              "strict": false,
            },
            "type": "function",
          },
        ],
      }
    `);
  });
});
