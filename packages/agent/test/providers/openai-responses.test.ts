import { type FakeProvider, startFakeProvider } from "@clew/agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { callModel } from "../../src/providers/call-model.js";
import { READ_TOOL, resolveFake, toolRound, userMessage } from "./helpers.js";
import { describeProtocol } from "./protocol-suite.js";

describeProtocol("openai-responses", {
  toolCallId: "call_7|fc_fake_1",
  overflowText: "exceeds the context window",
});

describe("openai-responses request", () => {
  let fake: FakeProvider | undefined;
  afterEach(async () => {
    await fake?.close();
  });

  it("sends the system prompt, the input items with a tool round and the tool schemas", async () => {
    fake = await startFakeProvider({ protocol: "openai-responses", script: () => ({ text: "ok" }) });
    const resolved = resolveFake(fake);
    const message = await callModel(resolved, {
      systemPrompt: "You are Clew.",
      messages: [userMessage("What port?"), ...toolRound(resolved, "call_1|fc_1"), userMessage("Thanks")],
      tools: [READ_TOOL],
    });

    expect(message.responseId).toBe(fake.responseIds[0]);
    const recorded = fake.requests[0];
    expect(recorded?.path).toBe("/v1/responses");
    const body = recorded?.body as Record<string, unknown>;
    expect({
      model: body.model,
      stream: body.stream,
      input: body.input,
      tools: body.tools,
    }).toMatchInlineSnapshot(`
      {
        "input": [
          {
            "content": "You are Clew.",
            "role": "system",
          },
          {
            "content": [
              {
                "text": "What port?",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
          {
            "arguments": "{"path":"notes.txt"}",
            "call_id": "call_1",
            "id": "fc_1",
            "name": "read_file",
            "type": "function_call",
          },
          {
            "call_id": "call_1",
            "output": "port=8080",
            "type": "function_call_output",
          },
          {
            "content": [
              {
                "text": "Thanks",
                "type": "input_text",
              },
            ],
            "role": "user",
          },
        ],
        "model": "fake-model",
        "stream": true,
        "tools": [
          {
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
            "type": "function",
          },
        ],
      }
    `);
  });
});
