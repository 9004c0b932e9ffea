import { type FakeProvider, type FakeReply, scriptedReplies, startFakeProvider } from "@clew/agent/testing";
import type { AssistantMessage, ContextEngineProjection } from "@clew/core";
import type { Message } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { createThreadProjectingCallModel } from "../../src/threads/thread-projection.js";
import { createThreadState } from "../../src/threads/thread-state.js";
import { bodyOf, inputSummary, piBase, resolveFakeModel, toolResult, user } from "./helpers.js";

const SYSTEM = "You are Clew.";
const THREAD: ContextEngineProjection = { mode: "thread_bootstrap", epoch: "epoch-1" };

let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(replies: FakeReply[], protocol: FakeProvider["protocol"] = "openai-responses") {
  fake = await startFakeProvider({ protocol, script: scriptedReplies(replies) });
  const provider = fake;
  const state = createThreadState();
  let projection: ContextEngineProjection | undefined = THREAD;
  const base = piBase(resolveFakeModel(provider));
  const callModel = createThreadProjectingCallModel({ base, state, projection: () => projection });
  const call = (messages: Message[], systemPrompt = SYSTEM) =>
    callModel({ systemPrompt, messages, tools: [] }, {});
  return {
    provider,
    state,
    base,
    call,
    callModel,
    setProjection: (next: ContextEngineProjection | undefined) => {
      projection = next;
    },
  };
}

function expectOk(reply: AssistantMessage): AssistantMessage {
  expect(reply.stopReason, reply.errorMessage).not.toBe("error");
  return reply;
}

describe("thread_bootstrap on OpenAI Responses", () => {
  it("sends the whole context once, then only the new items chained to the previous response", async () => {
    const { provider, state, call } = await setup([{ text: "Hello." }, { text: "Sure." }]);
    const first = expectOk(await call([user("Hi")]));
    const second = expectOk(await call([user("Hi"), first, user("And now?")]));

    const [bootstrap, continuation] = provider.requests;
    expect(inputSummary(bootstrap)).toEqual([`system:${SYSTEM}`, "user:Hi"]);
    expect(bootstrap?.previousResponseId).toBeUndefined();
    expect(bodyOf(bootstrap).store).toBe(true);
    expect(first.responseId).toBe(provider.responseIds[0]);

    expect(continuation?.previousResponseId).toBe(first.responseId);
    expect(inputSummary(continuation)).toEqual(["user:And now?"]);
    expect(bodyOf(continuation).store).toBe(true);
    expect(state).toMatchObject({
      epoch: "epoch-1",
      lastResponseId: second.responseId,
      serverMessageCount: 4,
      systemPrompt: SYSTEM,
    });
  });

  it("continues a tool loop with the tool outputs alone, and the next turn with the prompt alone", async () => {
    const { provider, call } = await setup([
      { toolCalls: [{ id: "call_1", name: "read_file", arguments: { path: "notes.txt" } }] },
      { text: "Port 8080." },
      { text: "You are welcome." },
    ]);
    const asked = expectOk(await call([user("What port?")]));
    const toolCall = asked.content.find((block) => block.type === "toolCall");
    const toolCallId = toolCall?.type === "toolCall" ? toolCall.id : "missing";
    const answered = expectOk(await call([user("What port?"), asked, toolResult(toolCallId, "port=8080")]));
    expectOk(
      await call([user("What port?"), asked, toolResult(toolCallId, "port=8080"), answered, user("Thanks")]),
    );

    expect(provider.requests.map((request) => request.previousResponseId)).toEqual([
      undefined,
      provider.responseIds[0],
      provider.responseIds[1],
    ]);
    expect(provider.requests.map(inputSummary)).toEqual([
      [`system:${SYSTEM}`, "user:What port?"],
      ["tool-output:call_1"],
      ["user:Thanks"],
    ]);
  });

  it("re-sends everything without previous_response_id when the epoch changes", async () => {
    const { provider, call, setProjection } = await setup([{ text: "One." }, { text: "Two." }]);
    const first = expectOk(await call([user("Hi")]));
    setProjection({ mode: "thread_bootstrap", epoch: "epoch-2" });
    await call([user("Hi"), first, user("Again")]);

    const second = provider.requests[1];
    expect(second?.previousResponseId).toBeUndefined();
    expect(inputSummary(second)).toEqual([`system:${SYSTEM}`, "user:Hi", "assistant:One.", "user:Again"]);
  });

  it("re-bootstraps when the system prompt changed or the context no longer holds the last reply", async () => {
    const { provider, call } = await setup([{ text: "One." }, { text: "Two." }, { text: "Three." }]);
    const first = expectOk(await call([user("Hi")]));
    const second = expectOk(await call([user("Hi"), first, user("Next")], "You are Clew, briefly."));
    expect(second.responseId).toBeDefined();
    // An engine that re-assembled the history without the last reply: the thread cannot be continued.
    await call([user("Hi"), first, user("Next"), user("Last")], "You are Clew, briefly.");

    expect(provider.requests.map((request) => request.previousResponseId)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(inputSummary(provider.requests[2])).toHaveLength(5);
  });

  it("bootstraps when pi-ai adds input items the messages do not show", async () => {
    const { provider, call } = await setup([
      { toolCalls: [{ id: "call_9", name: "read_file", arguments: { path: "a" } }] },
      { text: "Fine." },
    ]);
    const asked = expectOk(await call([user("Look")]));
    // No tool result: pi-ai synthesises one, so the new items are not just the user prompt.
    await call([user("Look"), asked, user("Never mind")]);

    const second = provider.requests[1];
    expect(second?.previousResponseId).toBeUndefined();
    expect(inputSummary(second)).toEqual([
      `system:${SYSTEM}`,
      "user:Look",
      "tool-call:call_9",
      "tool-output:call_9",
      "user:Never mind",
    ]);
  });

  it("resets the thread after a provider error, so the next call bootstraps", async () => {
    const { provider, state, call } = await setup([
      { text: "Hello." },
      { status: 400, error: "Previous response with id 'resp_fake_1' not found." },
      { text: "Back." },
    ]);
    const first = expectOk(await call([user("Hi")]));
    const failed = await call([user("Hi"), first, user("Still there?")]);
    expect(failed.stopReason).toBe("error");
    expect(provider.requests[1]?.previousResponseId).toBe(first.responseId);
    expect(state.lastResponseId).toBeUndefined();

    expectOk(await call([user("Hi"), first, user("Still there?"), failed, user("Hello?")]));
    const retry = provider.requests[2];
    expect(retry?.previousResponseId).toBeUndefined();
    expect(inputSummary(retry)).toEqual([
      `system:${SYSTEM}`,
      "user:Hi",
      "assistant:Hello.",
      "user:Still there?",
      "user:Hello?",
    ]);
  });

  it("resets the thread when the base call throws", async () => {
    const state = createThreadState();
    Object.assign(state, { lastResponseId: "resp_old", epoch: "epoch-1", serverMessageCount: 3 });
    const callModel = createThreadProjectingCallModel({
      base: async () => {
        throw new Error("transport broke");
      },
      state,
      projection: () => THREAD,
    });
    await expect(callModel({ systemPrompt: SYSTEM, messages: [user("Hi")], tools: [] }, {})).rejects.toThrow(
      "transport broke",
    );
    expect(state.lastResponseId).toBeUndefined();
    expect(state.serverMessageCount).toBe(0);
  });

  it("takes the projection from the call options before the getter", async () => {
    const { provider, callModel, setProjection } = await setup([{ text: "One." }, { text: "Two." }]);
    setProjection({ mode: "per_turn" });
    const options = { contextProjection: THREAD };
    const first = expectOk(
      await callModel({ systemPrompt: SYSTEM, messages: [user("Hi")], tools: [] }, options),
    );
    await callModel({ systemPrompt: SYSTEM, messages: [user("Hi"), first, user("Go")], tools: [] }, options);
    expect(provider.requests[1]?.previousResponseId).toBe(first.responseId);
  });
});

describe("calls that are not thread calls", () => {
  it("projects the whole context every call under per_turn or without a projection", async () => {
    const { provider, state, call, setProjection } = await setup([{ text: "One." }, { text: "Two." }]);
    setProjection({ mode: "per_turn", epoch: "epoch-1" });
    const first = expectOk(await call([user("Hi")]));
    setProjection(undefined);
    await call([user("Hi"), first, user("Again")]);

    for (const request of provider.requests) {
      expect(request.previousResponseId).toBeUndefined();
      expect(bodyOf(request).store).toBe(false);
    }
    expect(inputSummary(provider.requests[1])).toEqual([
      `system:${SYSTEM}`,
      "user:Hi",
      "assistant:One.",
      "user:Again",
    ]);
    expect(state.lastResponseId).toBeUndefined();
  });

  it("forgets the thread after a per_turn call", async () => {
    const { provider, call, setProjection } = await setup([
      { text: "One." },
      { text: "Two." },
      { text: "3" },
    ]);
    const first = expectOk(await call([user("Hi")]));
    setProjection({ mode: "per_turn" });
    const second = expectOk(await call([user("Hi"), first, user("B")]));
    setProjection(THREAD);
    await call([user("Hi"), first, user("B"), second, user("C")]);
    expect(provider.requests[2]?.previousResponseId).toBeUndefined();
    expect(inputSummary(provider.requests[2])).toHaveLength(6);
  });

  it("leaves other APIs' requests byte for byte as pi-ai built them", async () => {
    const { provider, state, base, call } = await setup(
      [{ text: "One." }, { text: "Two." }, { text: "Two." }],
      "openai-completions",
    );
    const first = expectOk(await call([user("Hi")]));
    const messages = [user("Hi"), first, user("Again")];
    await call(messages);
    await base({ systemPrompt: SYSTEM, messages, tools: [] }, {});

    expect(provider.requests[1]?.body).toEqual(provider.requests[2]?.body);
    expect(bodyOf(provider.requests[1])).not.toHaveProperty("previous_response_id");
    expect(state.lastResponseId).toBeUndefined();
  });
});
