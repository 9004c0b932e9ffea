import { type AgentMessage, type AssistantMessage, emptyUsage, type ToolResultMessage } from "@clew/core";
import type { RecordedTurn } from "./recorded-turns.js";

/**
 * A realistic, deterministic coding session for `clew replay --demo`: a developer and an agent fix
 * a flaky payment retry in a checkout service over many turns, with file reads, long test and log
 * outputs, edits, decisions, and identifiers (paths, hashes, ports, URLs, error codes) that a good
 * compaction must keep. The same seed always gives the same session.
 */
export function generateDemoSession(options: { turns?: number; seed?: number } = {}): RecordedTurn[] {
  const random = mulberry32(options.seed ?? 7);
  const clock = { now: Date.UTC(2026, 10, 2, 9, 0, 0) };
  const tick = () => (clock.now += 1_000 + Math.floor(random() * 20_000));
  const turns: RecordedTurn[] = [];
  const total = options.turns ?? 36;
  let call = 0;
  for (let index = 0; index < total; index++) {
    const script = SCRIPT[index % SCRIPT.length] as DemoStep;
    const round = Math.floor(index / SCRIPT.length);
    const prompt = round === 0 ? script.ask : `${script.ask} (pass ${round + 1})`;
    const steps: AgentMessage[][] = [];
    for (const tool of script.tools) {
      call += 1;
      const id = `call_${call.toString(36).padStart(4, "0")}`;
      const output = renderOutput(tool.output, random, index);
      steps.push([
        toolCallMessage(id, tool.name, tool.args, tick()),
        toolResultMessage(id, tool.name, output, tick()),
      ]);
    }
    steps.push([textMessage(script.answer, tick())]);
    turns.push({ prompt: { role: "user", content: prompt, timestamp: tick() }, steps });
  }
  return turns;
}

interface DemoTool {
  name: "read" | "exec" | "edit" | "write";
  args: Record<string, unknown>;
  output: { kind: "file" | "log" | "tests" | "short"; text?: string; lines?: number };
}

interface DemoStep {
  ask: string;
  tools: DemoTool[];
  answer: string;
}

const SCRIPT: DemoStep[] = [
  {
    ask: "The checkout-service integration tests fail about one run in five since commit 3f9c2e1. Can you find out why? The repo is in ~/work/checkout-service.",
    tools: [
      {
        name: "exec",
        args: { command: "git log --oneline -5" },
        output: {
          kind: "short",
          text: "3f9c2e1 payments: retry declined cards\n9a41b07 bump stripe-mock to 0.188.0\n77e0d2c checkout: split totals\n51c3aa9 ci: run on node 20\n0be4f61 initial import",
        },
      },
      {
        name: "exec",
        args: { command: "npm test -- --runInBand payments" },
        output: { kind: "tests", lines: 180 },
      },
    ],
    answer:
      "The failures are all in src/payments/retry.ts: `retryCharge` retries E_CARD_DECLINED, which the sandbox at https://api.stripe.test/v1/charges answers differently on every call. I'll read the retry code next.",
  },
  {
    ask: "Go ahead, read it. Remember: we must never retry a declined card more than once, that's a compliance rule.",
    tools: [{ name: "read", args: { path: "src/payments/retry.ts" }, output: { kind: "file", lines: 140 } }],
    answer:
      "Noted the rule: at most one retry for a declined card. The loop retries every error up to MAX_RETRIES=5 with a fixed 250ms delay, and it treats E_CARD_DECLINED like a network error. Decision: only network errors (ECONNRESET, ETIMEDOUT, HTTP 502/503) get exponential backoff; declines get one retry at most.",
  },
  {
    ask: "What do the logs say for the failing run?",
    tools: [
      {
        name: "exec",
        args: { command: "cat logs/checkout-2026-11-02.log | tail -n 400" },
        output: { kind: "log", lines: 400 },
      },
    ],
    answer:
      "The log shows 5 retries within 1.25 s for order ord_8f2k41 and then a timeout on port 8443 of the payments proxy. The test's 2 s budget is exceeded because of the retries, not the proxy.",
  },
  {
    ask: "OK, fix it the way you decided. Keep the PAYMENTS_API_KEY handling as it is.",
    tools: [
      {
        name: "edit",
        args: {
          path: "src/payments/retry.ts",
          oldText: "if (attempt < MAX_RETRIES)",
          newText: "if (isRetryable(error) && attempt < limitFor(error))",
        },
        output: {
          kind: "short",
          text: "@@ -42,1 +42,1 @@\n-    if (attempt < MAX_RETRIES)\n+    if (isRetryable(error) && attempt < limitFor(error))",
        },
      },
      {
        name: "write",
        args: {
          path: "src/payments/retry-policy.ts",
          content: "export const NETWORK_ERRORS = ['ECONNRESET','ETIMEDOUT'];",
        },
        output: { kind: "short", text: "Wrote 1,284 bytes to src/payments/retry-policy.ts" },
      },
    ],
    answer:
      "Done: retry-policy.ts holds the policy (network errors: up to 5 tries, backoff 250ms × 2^n capped at 4 s; E_CARD_DECLINED: 1 retry). PAYMENTS_API_KEY handling is untouched.",
  },
  {
    ask: "Run the payments tests again, ten times in a row.",
    tools: [
      {
        name: "exec",
        args: { command: "for i in $(seq 10); do npm test -- payments || break; done" },
        output: { kind: "tests", lines: 240 },
      },
    ],
    answer:
      "10 of 10 runs pass now; the slowest took 1.1 s. Open TODO: the proxy on port 8443 still logs a warning about TLS 1.2; not related, I'll leave it.",
  },
  {
    ask: "Great. Write a short note in docs/decisions/0007-payment-retries.md explaining the decision, then summarise what's left.",
    tools: [
      {
        name: "write",
        args: { path: "docs/decisions/0007-payment-retries.md", content: "# 0007 Payment retries" },
        output: { kind: "short", text: "Wrote 2,310 bytes to docs/decisions/0007-payment-retries.md" },
      },
    ],
    answer:
      "Wrote ADR 0007. Left to do: (1) the TLS warning on port 8443, (2) a metric for retries per order, (3) ask the team whether 4 s is the right backoff cap.",
  },
];

function renderOutput(spec: DemoTool["output"], random: () => number, turn: number): string {
  if (spec.kind === "short") return spec.text ?? "";
  const lines: string[] = [];
  const count = spec.lines ?? 100;
  for (let line = 1; line <= count; line++) {
    const jitter = Math.floor(random() * 900);
    if (spec.kind === "file") lines.push(`${String(line).padStart(4)}  ${CODE[line % CODE.length]}`);
    else if (spec.kind === "log") {
      lines.push(
        `2026-11-02T09:${String(10 + (line % 50)).padStart(2, "0")}:${String(line % 60).padStart(2, "0")}.${jitter}Z INFO payments.retry order=ord_${(turn * 977 + line).toString(36)} attempt=${(line % 5) + 1} delay=250ms upstream=127.0.0.1:8443 status=${line % 7 === 0 ? "E_CARD_DECLINED" : "ok"}`,
      );
    } else {
      lines.push(
        line % 23 === 0
          ? `  ✕ retries a declined card (${1_000 + jitter} ms)\n    Expected: 1 retry\n    Received: 5 retries at src/payments/retry.ts:42:11`
          : `  ✓ payments › case ${line} (${jitter % 120} ms)`,
      );
    }
  }
  return lines.join("\n");
}

const CODE = [
  "import { charge, type ChargeError } from './stripe-client';",
  "export const MAX_RETRIES = 5;",
  "export async function retryCharge(order: Order, attempt = 0): Promise<ChargeResult> {",
  "  try {",
  "    return await charge(order, { apiKey: process.env.PAYMENTS_API_KEY });",
  "  } catch (error) {",
  "    if (attempt < MAX_RETRIES) {",
  "      await sleep(250);",
  "      return retryCharge(order, attempt + 1);",
  "    }",
  "    throw error;",
  "  }",
  "}",
];

function assistantBase(timestamp: number): Omit<AssistantMessage, "content" | "stopReason"> {
  return {
    role: "assistant",
    api: "openai-completions",
    provider: "demo",
    model: "demo-model",
    usage: emptyUsage(),
    timestamp,
  };
}

function toolCallMessage(
  id: string,
  name: string,
  args: Record<string, unknown>,
  timestamp: number,
): AssistantMessage {
  return {
    ...assistantBase(timestamp),
    content: [{ type: "toolCall", id, name, arguments: args }],
    stopReason: "toolUse",
  };
}

function textMessage(text: string, timestamp: number): AssistantMessage {
  return { ...assistantBase(timestamp), content: [{ type: "text", text }], stopReason: "stop" };
}

function toolResultMessage(id: string, name: string, text: string, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: name,
    content: [{ type: "text", text }],
    isError: false,
    timestamp,
  };
}

/** A small, well-known seeded generator: the demo must be the same on every machine. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
