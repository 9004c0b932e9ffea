import type { ContextEngineStatus, QuarantineRecord } from "@clew/core";
import { describe, expect, it } from "vitest";
import { formatStatusCard, type StatusCardData } from "../../src/commands/index.js";

const now = 1_700_000_000_000;

function engineStatus(
  effectiveId: string,
  configuredId: string | undefined,
  extra: Partial<ContextEngineStatus> = {},
): ContextEngineStatus {
  return {
    configuredId,
    effectiveId,
    engine: { id: effectiveId, name: effectiveId, ownsCompaction: false, turnMaintenanceMode: "foreground" },
    host: { id: "clew", label: "Clew", capabilities: [] },
    hostSupport: {
      "agent-run": { ok: true },
      "manual-compact": { ok: true },
      "subagent-spawn": { ok: true },
    },
    quarantined: [],
    ...extra,
  };
}

function cardData(overrides: Partial<StatusCardData> = {}): StatusCardData {
  return {
    version: "0.1.0",
    model: "anthropic/claude-sonnet-4-5",
    usage: { input: 12_345, output: 2100, cacheRead: 8000, cacheWrite: 2000 },
    context: { used: 3400, window: 200_000, compactions: 2 },
    engine: engineStatus("legacy", undefined),
    pruning: { mode: "cache-ttl", ttlMs: 300_000 },
    session: { key: "agent:main:main", updatedAt: now - 5 * 60_000 },
    now,
    runtime: { thinkingLevel: "low", verbose: "on", reasoning: "stream", usageMode: "tokens" },
    ...overrides,
  };
}

describe("formatStatusCard", () => {
  it("lays out every line in order", () => {
    expect(formatStatusCard(cardData())).toBe(
      [
        "🧶 Clew 0.1.0",
        "🧠 Model: anthropic/claude-sonnet-4-5",
        "🧮 Tokens: 12k in / 2.1k out",
        "🗄️ Cache: 36% hit · 8.0k cached, 2.0k new",
        "📚 Context: 3.4k/200k (2%) · 🧹 Compactions: 2",
        "🧩 Engine: legacy",
        "✂️ Pruning: cache-ttl (ttl 5m)",
        "🧵 Session: agent:main:main • updated 5m ago",
        "⚙️ Think: low · verbose · Reasoning: stream · Usage: tokens",
      ].join("\n"),
    );
  });

  it("adds the commit, time line, auth label and cost when known", () => {
    const card = formatStatusCard(
      cardData({
        commit: "abc1234",
        timeLine: "🕒 Time: 2023-11-14 22:13 UTC",
        authLabel: "api-key",
        usage: { input: 900, output: 40, cacheRead: 0, cacheWrite: 0, cost: 0.0042 },
      }),
    );
    expect(card.split("\n").slice(0, 4)).toEqual([
      "🧶 Clew 0.1.0 (abc1234)",
      "🕒 Time: 2023-11-14 22:13 UTC",
      "🧠 Model: anthropic/claude-sonnet-4-5 · 🔑 api-key",
      "🧮 Tokens: 900 in / 40 out · 💵 Cost: $0.0042",
    ]);
    expect(card).not.toContain("🗄️ Cache");
  });

  it("shows why the effective engine differs from the configured one", () => {
    const quarantine: QuarantineRecord = {
      engineId: "lossless",
      operation: "assemble",
      reason: "boom",
      failedAt: now,
    };
    const quarantined = engineStatus("legacy", "lossless", { fallbackReason: "quarantined", quarantine });
    const notRegistered = engineStatus("legacy", "ghost", { fallbackReason: "not-registered" });
    const lines = (engine: ContextEngineStatus) => formatStatusCard(cardData({ engine })).split("\n");
    expect(lines(quarantined)).toContain(
      "🧩 Engine: legacy (configured: lossless; quarantined during assemble: boom)",
    );
    expect(lines(notRegistered)).toContain("🧩 Engine: legacy (configured: ghost; not-registered)");
    expect(lines(engineStatus("lossless", "lossless"))).toContain("🧩 Engine: lossless");
  });

  it("handles unknown context, no activity, defaults and missing optional sections", () => {
    const card = formatStatusCard(
      cardData({
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        context: { window: 128_000, compactions: 0 },
        engine: undefined,
        pruning: { mode: "off", ttlMs: 300_000 },
        session: { key: "agent:main:work" },
        runtime: { thinkingLevel: "off", verbose: "full", reasoning: "off", usageMode: "off" },
      }),
    );
    expect(card).toBe(
      [
        "🧶 Clew 0.1.0",
        "🧠 Model: anthropic/claude-sonnet-4-5",
        "🧮 Tokens: 0 in / 0 out",
        "📚 Context: ?/128k · 🧹 Compactions: 0",
        "✂️ Pruning: off",
        "🧵 Session: agent:main:work • no activity",
        "⚙️ Think: off · verbose:full · Usage: off",
      ].join("\n"),
    );
  });

  it("caps the context percentage at 999", () => {
    const card = formatStatusCard(
      cardData({ context: { used: 5_000_000, window: 100_000, compactions: 9 } }),
    );
    expect(card).toContain("📚 Context: 5.0m/100k (999%) · 🧹 Compactions: 9");
  });
});
