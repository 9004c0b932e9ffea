import type { FakeReply, RecordedRequest } from "@clew/agent/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createLosslessAgent } from "./support/agent-harness.js";

// Chat input is trimmed before it is stored, so the needle's odd whitespace is all inside it.
const NEEDLE = "Remember: the deploy key is XK-42-ALPHA\n\tüñî ✓ 日本 — keep   this spacing";
const KEY = "agent:main:main";

let agent: Awaited<ReturnType<typeof createLosslessAgent>> | undefined;
afterEach(async () => {
  await agent?.cleanup();
  agent = undefined;
});

interface WireMessage {
  role: string;
  content?: unknown;
}

function messagesOf(request: RecordedRequest): WireMessage[] {
  return (request.body as { messages: WireMessage[] }).messages;
}

function textOf(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((part) => (part as { text?: string }).text ?? "").join("") : "";
}

function toolNames(request: RecordedRequest | undefined): string[] {
  return ((request?.body as { tools?: Array<{ function: { name: string } }> } | undefined)?.tools ?? []).map(
    (tool) => tool.function.name,
  );
}

const call = (name: string, args: Record<string, unknown>): FakeReply => ({
  toolCalls: [{ name, arguments: args }],
});

/**
 * The model's side of the conversation, decided by the newest message it is sent: it searches
 * for the key, reads the message the search found, and, as a forked subagent, reads the parent's.
 */
function script(request: RecordedRequest): FakeReply {
  const last = messagesOf(request).at(-1);
  const text = textOf(last);
  if (last?.role === "user") {
    if (text.startsWith("Remember:")) return { text: "Noted." };
    if (text === "What was the deploy key?") return call("recall_search", { query: "XK-42-ALPHA" });
    if (text === "Delegate the lookup.")
      return call("spawn_subagent", { task: "Read the parent's first message.", context: "fork" });
    if (text === "Read the parent's first message.")
      return call("recall_read", { messageIds: ["parent:m1"] });
  }
  if (last?.role === "tool") {
    if (text.includes("From the parent conversation")) return { text: "The child read it." };
    if (text.includes("The child read it.")) return { text: "Delegated." };
    const found = /^\d+\. ((?:prev\d+:)?m\d+) \((?:earlier session prev\d+ \([^)]*\), )?message, user/m.exec(
      text,
    );
    if (found !== null) return call("recall_read", { messageIds: [found[1]] });
    if (text.startsWith("No stored message or summary matches")) return { text: "I do not know it." };
    if (text.includes("XK-42-ALPHA")) return { text: "The key is XK-42-ALPHA." };
  }
  return { text: `unexpected request: ${JSON.stringify(last)}` };
}

describe("the lossless recall tools in a real agent", () => {
  it("reach the model per session: it searches, then reads the stored message byte-exact", async () => {
    agent = await createLosslessAgent(script);
    const { service, fake, report } = agent;
    expect(report.plugins.find((plugin) => plugin.id === "lossless")).toMatchObject({
      loaded: true,
      toolNames: ["recall_search", "recall_read", "recall_describe"],
    });
    await service.createSession({ sessionKey: KEY });
    expect(await service.sendMessage(KEY, NEEDLE)).toMatchObject({ ok: true, text: "Noted." });
    const answer = await service.sendMessage(KEY, "What was the deploy key?");
    expect(answer).toMatchObject({ ok: true, text: "The key is XK-42-ALPHA." });

    const asked = fake.requests[1];
    expect(toolNames(asked)).toEqual(
      expect.arrayContaining(["recall_search", "recall_read", "recall_describe"]),
    );
    // The recall policy names the tools only because the run has them.
    expect(textOf(asked === undefined ? undefined : messagesOf(asked)[0])).toContain("recall_search finds");

    const session = await service.getSession(KEY);
    const stored = session.messages[0];
    const read = session.messages.filter(
      (message) => (message as { role: string }).role === "toolResult",
    )[1] as {
      toolName: string;
      isError: boolean;
      content: Array<{ text: string }>;
      details: { messages: Array<{ id: string; message: unknown }> };
    };
    expect(read).toMatchObject({ toolName: "recall_read", isError: false });
    expect(textOf(stored as WireMessage)).toBe(NEEDLE);
    expect(read.content[0]?.text).toContain(NEEDLE);
    expect(read.details.messages[0]?.message).toEqual(stored);
    expect(JSON.stringify(read.details.messages[0]?.message)).toContain(JSON.stringify(NEEDLE));
    expect(await service.context(KEY, "list")).toContain("recall_search");
  });

  it("reach the conversation's session before a /new: the model finds and reads it by prev1: ids", async () => {
    agent = await createLosslessAgent(script);
    const { service } = agent;
    await service.createSession({ sessionKey: KEY });
    await service.sendMessage(KEY, NEEDLE);
    const before = (await service.getSession(KEY)).sessionId;
    expect(await service.sendMessage(KEY, "/new")).toMatchObject({ kind: "command", ok: true });
    expect((await service.getSession(KEY)).sessionId).not.toBe(before);

    expect(await service.sendMessage(KEY, "What was the deploy key?")).toMatchObject({
      ok: true,
      text: "The key is XK-42-ALPHA.",
    });
    const results = (await service.getSession(KEY)).messages.filter(
      (message) => (message as { role: string }).role === "toolResult",
    ) as Array<{ toolName: string; isError: boolean; content: Array<{ text: string }> }>;
    expect(results.map((result) => [result.toolName, result.isError])).toEqual([
      ["recall_search", false],
      ["recall_read", false],
    ]);
    expect(results[0]?.content[0]?.text).toMatch(/^1\. prev1:m1 \(earlier session prev1 \(/m);
    expect(results[1]?.content[0]?.text).toMatch(/^From an earlier session of this conversation \(prev1, /);
    expect(results[1]?.content[0]?.text).toContain(`[prev1:m1 user `);
    expect(results[1]?.content[0]?.text).toContain(NEEDLE);
  });

  it("never reach a deleted conversation from a new session under its key", async () => {
    agent = await createLosslessAgent(script);
    const { service } = agent;
    await service.createSession({ sessionKey: KEY });
    await service.sendMessage(KEY, NEEDLE);
    await service.sendMessage(KEY, "/new");
    await service.sendMessage(KEY, "Remember: the second session holds XK-42-ALPHA too");
    await service.deleteSession(KEY);
    await service.createSession({ sessionKey: KEY });
    expect(await service.sendMessage(KEY, "What was the deploy key?")).toMatchObject({
      ok: true,
      text: "I do not know it.",
    });
  });

  it("let a forked subagent read its parent's history through its grant", async () => {
    agent = await createLosslessAgent(script);
    const { service } = agent;
    await service.createSession({ sessionKey: KEY });
    await service.sendMessage(KEY, NEEDLE);
    expect(await service.sendMessage(KEY, "Delegate the lookup.")).toMatchObject({
      ok: true,
      text: "Delegated.",
    });

    const child = (await service.listSessions()).find((summary) =>
      summary.sessionKey.startsWith(`${KEY}:sub:`),
    );
    if (child === undefined) throw new Error("no subagent session");
    const childSession = await service.getSession(child.sessionKey);
    const read = childSession.messages.find(
      (message) => (message as { role: string }).role === "toolResult",
    ) as {
      isError: boolean;
      content: Array<{ text: string }>;
    };
    expect(read.isError).toBe(false);
    expect(read.content[0]?.text).toContain(`From the parent conversation ${KEY}`);
    expect(read.content[0]?.text).toContain(`[parent:m1 user `);
    expect(read.content[0]?.text).toContain(NEEDLE);
  });
});
