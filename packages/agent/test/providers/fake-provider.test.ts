import {
  type FakeProvider,
  PromptPrefixCache,
  promptUnitTokens,
  scriptedReplies,
  startFakeProvider,
  withBreakpointCache,
  withPrefixCache,
} from "@clew/agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { callModel } from "../../src/providers/call-model.js";
import { resolveFake, userMessage } from "./helpers.js";

const request = { systemPrompt: "", messages: [userMessage("hi")], tools: [] };

function textOf(message: { content: Array<{ type: string; text?: string }> }): string {
  return message.content.map((block) => block.text ?? "").join("");
}

describe("fake providers", () => {
  let fake: FakeProvider | undefined;
  afterEach(async () => {
    await fake?.close();
  });

  it("answers scripted replies in order and repeats the last one", async () => {
    fake = await startFakeProvider({
      protocol: "anthropic-messages",
      script: scriptedReplies([{ text: "first" }, { text: "second" }]),
    });
    const resolved = resolveFake(fake);
    const answers: string[] = [];
    for (let call = 0; call < 3; call += 1) answers.push(textOf(await callModel(resolved, request)));

    expect(answers).toEqual(["first", "second", "second"]);
    expect(fake.requests.map((recorded) => recorded.index)).toEqual([0, 1, 2]);
  });

  it("caches prompt prefixes: a call reads the longest prefix of whole messages sent before", async () => {
    const cache = withPrefixCache(() => ({ text: "ok" }));
    fake = await startFakeProvider({ protocol: "openai-completions", script: cache.script });
    const resolved = resolveFake(fake);
    const first = userMessage("a first question of some length");
    const second = userMessage("a second one");
    const calls = [
      { systemPrompt: "be brief", messages: [first], tools: [] },
      { systemPrompt: "be brief", messages: [first, second], tools: [] },
      { systemPrompt: "be brief", messages: [second], tools: [] },
      { systemPrompt: "be brief, and kind", messages: [first, second], tools: [] },
    ];
    const usages = [];
    for (const call of calls) usages.push((await callModel(resolved, call)).usage);

    const sent = fake.requests.map((recorded) => promptUnitTokens(recorded.body));
    const total = (units: number[] | undefined) => (units ?? []).reduce((sum, tokens) => sum + tokens, 0);
    const through = (units: number[] | undefined, count: number) => total(units?.slice(0, count));
    // Head, system prompt and the first question were sent before; the rest is new.
    expect(cache.cacheReads).toEqual([0, through(sent[1], 3), through(sent[2], 2), through(sent[3], 1)]);
    expect(usages.map((usage) => usage.cacheRead)).toEqual(cache.cacheReads);
    expect(usages.map((usage) => usage.input + usage.cacheRead)).toEqual(sent.map(total));
  });

  it("models a prompt cache: whole leading units, the latest prompts only, rejected prompts never", () => {
    const tokens = [10, 20, 30];
    const cache = new PromptPrefixCache(1);
    expect(cache.serve(["s", "a", "b"], tokens)).toBe(0);
    expect(cache.serve(["s", "a", "c"], tokens)).toBe(30);
    // Only the latest prompt is remembered: "s, a, b" was forgotten.
    expect(cache.serve(["s", "a", "b"], tokens)).toBe(30);
    expect(cache.serve(["x"], [5], false)).toBe(0);
    expect(cache.serve(["x"], [5])).toBe(0);
    const all = new PromptPrefixCache();
    all.serve(["s", "a", "b"], tokens);
    all.serve(["t"], [7]);
    expect(all.serve(["s", "a", "b"], tokens)).toBe(60);

    const rejecting = withPrefixCache(scriptedReplies([{ overflow: true }, { text: "ok" }]));
    const body = { model: "m", messages: [{ role: "user", content: "hi" }] };
    const request = (index: number) => ({ index, method: "POST", path: "/", headers: {}, body });
    expect(rejecting.script(request(0)).usage).toMatchObject({ cacheRead: 0 });
    // The overflowed prompt was not cached, so the retry reads nothing either.
    expect(rejecting.script(request(1)).usage).toMatchObject({ cacheRead: 0 });
  });

  it("keys the prompt cache on the prompt, not on the reply's length cap", () => {
    const cache = withPrefixCache(() => ({ text: "ok" }));
    const messages = [{ role: "user", content: "a question asked twice" }];
    const request = (index: number, cap: Record<string, number>) => ({
      index,
      method: "POST",
      path: "/",
      headers: {},
      body: { model: "m", ...cap, messages },
    });
    cache.script(request(0, { max_tokens: 4_000 }));
    const units = promptUnitTokens(request(1, { max_tokens: 3_000 }).body);
    expect(cache.script(request(1, { max_tokens: 3_000 })).usage).toMatchObject({
      cacheRead: units.reduce((sum, tokens) => sum + tokens, 0),
    });
    expect(cache.script(request(2, { max_completion_tokens: 900 })).usage).toMatchObject({
      cacheRead: units.reduce((sum, tokens) => sum + tokens, 0),
    });
    expect(cache.script(request(3, { temperature: 0 })).usage).toMatchObject({ cacheRead: 0 });
  });

  it("models Anthropic's cache: prefixes written at breakpoints, read up to 20 blocks back, markers aside", () => {
    const cache = withBreakpointCache(() => ({ text: "ok" }));
    const block = (text: string, marked = false) => ({
      type: "text",
      text,
      ...(marked ? { cache_control: { type: "ephemeral" } } : {}),
    });
    const body = (count: number, marks: number[]) => ({
      system: [block("be brief")],
      messages: Array.from({ length: count }, (_, index) => ({
        role: index % 2 === 0 ? "user" : "assistant",
        content: [block(`message ${index}`, marks.includes(index))],
      })),
    });
    const request = (index: number, value: unknown) => ({
      index,
      method: "POST",
      path: "/",
      headers: {},
      body: value,
    });
    const tokensThrough = (count: number) =>
      [
        { type: "text", text: "be brief" },
        ...Array.from({ length: count }, (_, i) => ({
          ...block(`message ${i}`),
          role: i % 2 === 0 ? "user" : "assistant",
        })),
      ].reduce((sum, b) => sum + Math.ceil(JSON.stringify(b).length / 4), 0);

    cache.script(request(0, body(5, [4])));
    // 10 blocks on, the breakpoint finds the prefix written at message 4 (markers are no part of it).
    expect(cache.script(request(1, body(15, [14]))).usage).toMatchObject({ cacheRead: tokensThrough(5) });
    // 30 blocks on, past the lookback, only the prefix written by the call before is in reach.
    expect(cache.script(request(2, body(40, [39]))).usage).toMatchObject({ cacheRead: 0 });
    // A breakpoint exactly where an earlier one ended reads it, wherever the last one is.
    expect(cache.script(request(3, body(80, [39, 79]))).usage).toMatchObject({
      cacheRead: tokensThrough(40),
    });
    expect(cache.breakpoints).toEqual([1, 1, 1, 2]);
  });

  it("refuses an empty script", () => {
    expect(() => scriptedReplies([])).toThrow("at least one reply");
  });

  it("closes promptly while a reply is still streaming, and the caller gets an error message", async () => {
    fake = await startFakeProvider({
      protocol: "openai-completions",
      script: () => ({ text: "slow words never end", chunkDelayMs: 10_000 }),
    });
    const opened = fake;
    let closing: Promise<void> | undefined;
    const started = Date.now();
    const message = await callModel(resolveFake(opened), request, {
      maxRetries: 0,
      onEvent: (event) => {
        if (event.type === "start") closing = opened.close();
      },
    });
    await closing;

    expect(message.stopReason).toBe("error");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("records previous_response_id and echoes it in response.created", async () => {
    fake = await startFakeProvider({ protocol: "openai-responses", script: () => ({ text: "again" }) });
    const response = await fetch(`${fake.baseUrl}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: [], stream: true, previous_response_id: "resp_earlier" }),
    });
    const body = await response.text();

    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(fake.requests[0]?.previousResponseId).toBe("resp_earlier");
    const created = body.split("\n\n")[0] ?? "";
    expect(created.split("\n")[0]).toBe("event: response.created");
    expect(JSON.parse(created.split("\n")[1]?.slice("data: ".length) ?? "")).toMatchObject({
      type: "response.created",
      sequence_number: 0,
      response: { id: "resp_fake_1", previous_response_id: "resp_earlier", status: "in_progress" },
    });
    expect(body).toContain("event: response.completed");
  });

  it("ends an OpenAI chat stream with a usage chunk and [DONE] only when usage was asked for", async () => {
    fake = await startFakeProvider({ protocol: "openai-completions", script: () => ({ text: "hi" }) });
    const post = (body: unknown) =>
      fetch(`${fake?.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(body) }).then(
        (answer) => answer.text(),
      );
    const withUsage = await post({ model: "m", stream: true, stream_options: { include_usage: true } });
    const withoutUsage = await post({ model: "m", stream: true });

    expect(withUsage).toContain('"usage":{"prompt_tokens":10');
    expect(withUsage.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(withoutUsage).not.toContain('"usage"');
    expect(withoutUsage.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("answers an unknown path with 404 and a script failure with 500, recording both", async () => {
    fake = await startFakeProvider({
      protocol: "anthropic-messages",
      script: () => {
        throw new Error("script bug");
      },
    });
    const wrongPath = await fetch(`${fake.baseUrl}/v1/complete`, { method: "POST", body: "{}" });
    const scriptFailure = await fetch(`${fake.baseUrl}/v1/messages`, { method: "POST", body: "{}" });

    expect(wrongPath.status).toBe(404);
    expect(scriptFailure.status).toBe(500);
    expect(await scriptFailure.json()).toMatchObject({
      type: "error",
      error: { message: expect.stringContaining("script bug") },
    });
    expect(fake.requests.map((recorded) => recorded.path)).toEqual(["/v1/complete", "/v1/messages"]);
  });
});
