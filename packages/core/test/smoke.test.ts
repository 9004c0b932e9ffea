import { describe, expect, it } from "vitest";
import { conversation, createTestHost, EchoModel, testModel } from "./support.js";

describe("a turn through the legacy engine", () => {
  it("sends the history and the prompt to the model and stores the turn", async () => {
    const { host, sessions } = createTestHost();
    const session = sessions.open({ sessionId: "s1", messages: conversation(2) });
    const model = new EchoModel();
    const result = await host.runTurn({
      session,
      prompt: "hello",
      systemPrompt: "You are a test.",
      model: testModel,
      callModel: model.step,
    });
    expect(result.engineId).toBe("legacy");
    expect(model.requests[0]?.messages).toHaveLength(5);
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({ role: "user", content: "hello" });
    expect(await session.messages()).toHaveLength(6);
  });
});
