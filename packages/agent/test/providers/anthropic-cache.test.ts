import type { Api, Message, Model } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { AnthropicCacheAnchors } from "../../src/providers/anthropic-cache.js";
import { chainPayloadHooks } from "../../src/providers/payload-hooks.js";

const anthropic = { api: "anthropic-messages" } as Model<Api>;
const openai = { api: "openai-completions" } as Model<Api>;
const EPHEMERAL = { type: "ephemeral" };
const evidence = (text: string): Message => ({ role: "user", content: text, timestamp: 1 });

type Block = Record<string, unknown>;
interface Payload {
  system?: Block[];
  tools?: Block[];
  messages: Array<{ role: string; content: string | Block[] }>;
}

/** A payload as pi-ai builds it: breakpoints on the last tool, the system prompt and the last user message. */
function payload(
  history: Payload["messages"],
  block: string | undefined,
  prompt: string,
  tools = true,
): Payload {
  return {
    ...(tools ? { tools: [{ name: "read" }, { name: "write", cache_control: { ...EPHEMERAL } }] } : {}),
    system: [{ type: "text", text: "You are a coding agent.", cache_control: { ...EPHEMERAL } }],
    messages: [
      ...structuredClone(history),
      ...(block === undefined ? [] : [{ role: "user", content: block }]),
      { role: "user", content: [{ type: "text", text: prompt, cache_control: { ...EPHEMERAL } }] },
    ],
  };
}

function marked(body: Payload): number[] {
  return body.messages.flatMap((message, index) =>
    Array.isArray(message.content) && message.content.some((block) => block.cache_control) ? [index] : [],
  );
}

/** The content blocks of message `index` (a test's own payload: always an array there). */
function blocksAt(body: Payload, index: number): Block[] {
  const content = body.messages[index]?.content;
  if (!Array.isArray(content)) throw new Error(`message ${index} has no blocks`);
  return content;
}

const count = (body: Payload) =>
  [
    ...(body.tools ?? []),
    ...(body.system ?? []),
    ...body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])),
  ].filter((block) => block.cache_control).length;

const history: Payload["messages"] = [
  { role: "user", content: "first question" },
  { role: "assistant", content: [{ type: "text", text: "first answer" }] },
  { role: "user", content: "second question" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "reading" },
      { type: "thinking", thinking: "hmm", signature: "s" },
    ],
  },
];

describe("AnthropicCacheAnchors", () => {
  it("ends the stable prefix with a breakpoint, right before the per-request block", async () => {
    const anchors = new AnthropicCacheAnchors();
    const body = payload(history, "[Recalled context] earlier", "third question");
    await anchors.hook(evidence("[Recalled context] earlier"))(body, anthropic);
    expect(marked(body)).toEqual([3, 5]);
    // Not on the thinking block, which cannot carry one: on the text before it.
    expect(body.messages[3]?.content).toEqual([
      { type: "text", text: "reading", cache_control: EPHEMERAL },
      { type: "thinking", thinking: "hmm", signature: "s" },
    ]);
    expect(count(body)).toBe(4);
  });

  it("reads the previous request's prefix where it ended, giving the system prompt's breakpoint up", async () => {
    const anchors = new AnthropicCacheAnchors();
    await anchors.hook(evidence("[Recalled context] a"))(
      payload(history, "[Recalled context] a", "third"),
      anthropic,
    );
    const longer: Payload["messages"] = [
      ...history,
      { role: "user", content: "third" },
      { role: "assistant", content: [{ type: "text", text: "third answer" }] },
    ];
    const next = payload(longer, "[Recalled context] b", "fourth");
    await anchors.hook(evidence("[Recalled context] b"))(next, anthropic);
    expect(marked(next)).toEqual([3, 5, 7]);
    expect(next.system?.[0]?.cache_control).toBeUndefined();
    expect(next.tools?.[1]?.cache_control).toEqual(EPHEMERAL);
    expect(count(next)).toBe(4);
  });

  it("never passes four: the system prompt's breakpoint gives way when the tools hold one, else the read one is left out", async () => {
    const anchors = new AnthropicCacheAnchors();
    await anchors.hook(evidence("[Recalled context] a"))(
      payload(history, "[Recalled context] a", "q", false),
      anthropic,
    );
    const longer = [...history, { role: "user", content: "q" }, { role: "assistant", content: "a" }];
    const next = payload(longer, "[Recalled context] b", "r", false);
    // Without tools, system + last user + write + read make four.
    await anchors.hook(evidence("[Recalled context] b"))(next, anthropic);
    expect(count(next)).toBe(4);
    expect(marked(next)).toEqual([3, 5, 7]);
    const third = payload([...longer, { role: "user", content: "r" }], "[Recalled context] c", "s");
    third.messages[0] = {
      role: "user",
      content: [{ type: "text", text: "first question", cache_control: EPHEMERAL }],
    };
    // Tools, system, a breakpoint of the caller's own and the last user message: four already.
    await anchors.hook(evidence("[Recalled context] c"))(third, anthropic);
    expect(count(third)).toBe(4);
    expect(third.system?.[0]?.cache_control).toBeUndefined();
    expect(marked(third)).toEqual([0, 6, 8]);
  });

  it("one breakpoint where the next step of a tool loop holds the same prefix", async () => {
    const anchors = new AnthropicCacheAnchors();
    await anchors.hook(evidence("[Recalled context] a"))(
      payload(history, "[Recalled context] a", "q"),
      anthropic,
    );
    const step = payload(history, "[Recalled context] a", "q");
    step.messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: "t", name: "read", input: {} }],
    });
    step.messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t", content: "x", cache_control: EPHEMERAL }],
    });
    (step.messages[5]?.content as Block[])[0] = { type: "text", text: "q" };
    await anchors.hook(evidence("[Recalled context] a"))(step, anthropic);
    expect(marked(step)).toEqual([3, 7]);
    expect(step.system?.[0]?.cache_control).toEqual(EPHEMERAL);
  });

  it("forgets an anchor the history no longer holds (a compaction between), and leaves other APIs alone", async () => {
    const anchors = new AnthropicCacheAnchors();
    await anchors.hook(evidence("[Recalled context] a"))(
      payload(history, "[Recalled context] a", "q"),
      anthropic,
    );
    const compacted = payload(
      [
        { role: "user", content: "summary of everything" },
        { role: "assistant", content: [{ type: "text", text: "ok" }] },
        { role: "user", content: "q" },
        { role: "assistant", content: [{ type: "text", text: "a" }] },
      ],
      "[Recalled context] b",
      "r",
    );
    await anchors.hook(evidence("[Recalled context] b"))(compacted, anthropic);
    expect(marked(compacted)).toEqual([3, 5]);

    const other = payload(history, "[Recalled context] a", "q");
    const before = JSON.stringify(other);
    expect(await anchors.hook(evidence("[Recalled context] a"))(other, openai)).toBeUndefined();
    expect(JSON.stringify(other)).toBe(before);
  });

  it("runs on the body the hook before it returned", async () => {
    const anchors = new AnthropicCacheAnchors();
    // A hook that returns a new body with one more message in front: the indices shift by one.
    const first = async (body: unknown) => {
      const copy = structuredClone(body as Payload);
      return { ...copy, messages: [{ role: "user", content: "projected" }, ...copy.messages] };
    };
    const hook = chainPayloadHooks(first, anchors.hook(evidence("[Recalled context] a")));
    const result = (await hook?.(payload(history, "[Recalled context] a", "q"), anthropic)) as Payload;
    expect(marked(result)).toEqual([4, 6]);
  });

  it("uses pi-ai's own marker, so every breakpoint has its lifetime, and adds none where it placed none", async () => {
    const anchors = new AnthropicCacheAnchors();
    const long = payload(history, "[Recalled context] a", "q");
    const hour = { type: "ephemeral", ttl: "1h" };
    for (const block of [...(long.tools ?? []), ...(long.system ?? [])])
      if (block.cache_control) block.cache_control = { ...hour };
    (long.messages.at(-1)?.content as Block[])[0] = { type: "text", text: "q", cache_control: { ...hour } };
    await anchors.hook(evidence("[Recalled context] a"))(long, anthropic);
    expect(blocksAt(long, 3)[0]?.cache_control).toEqual(hour);

    const uncached = payload(history, "[Recalled context] a", "q");
    for (const block of [
      ...(uncached.tools ?? []),
      ...(uncached.system ?? []),
      ...blocksAt(uncached, uncached.messages.length - 1),
    ])
      delete block.cache_control;
    expect(
      await new AnthropicCacheAnchors().hook(evidence("[Recalled context] a"))(uncached, anthropic),
    ).toBeUndefined();
    expect(count(uncached)).toBe(0);
  });

  it("keeps the anchor through a request without a block, and never reads a prefix that changed", async () => {
    const anchors = new AnthropicCacheAnchors();
    await anchors.hook(evidence("[Recalled context] a"))(
      payload(history, "[Recalled context] a", "q"),
      anthropic,
    );
    const longer = [...history, { role: "user", content: "q" }, { role: "assistant", content: "a" }];
    // A memory flush in between: no block, so no new anchor; the next turn still reads message 3.
    await anchors.hook(undefined)(payload(longer, undefined, "flush"), anthropic);
    const next = payload(
      [...longer, { role: "user", content: "flush" }, { role: "assistant", content: "NO_REPLY" }],
      "[Recalled context] b",
      "r",
    );
    await anchors.hook(evidence("[Recalled context] b"))(next, anthropic);
    expect(marked(next)).toEqual([3, 7, 9]);

    // The same message at the same index after a different history (a compaction rewrote the
    // start): not the prefix that was written, so nothing is read there.
    const again = new AnthropicCacheAnchors();
    await again.hook(evidence("[Recalled context] a"))(
      payload(history, "[Recalled context] a", "q"),
      anthropic,
    );
    const compacted = payload(
      [{ role: "user", content: "a summary of everything" }, ...structuredClone(longer).slice(1)],
      "[Recalled context] c",
      "s",
    );
    await again.hook(evidence("[Recalled context] c"))(compacted, anthropic);
    expect(marked(compacted)).toEqual([5, 7]);
  });
});
