import { describe, expect, it } from "vitest";
import { setupWith } from "./quarantine-helpers.js";

describe("describeStatus through the guarded wrapper", () => {
  it("is forwarded when the engine has it and absent when it does not", async () => {
    const section = { title: "Acme store", lines: ["3 things"], data: { things: 3 } };
    const { engine } = await setupWith({ describeStatus: async () => section });
    expect(await engine.describeStatus?.({ sessionId: "s1" })).toEqual(section);
    const plain = await setupWith({});
    expect(plain.engine.describeStatus).toBeUndefined();
  });

  it("answers nothing for a failure, without quarantining the engine", async () => {
    const { engine, logger } = await setupWith({
      describeStatus: async () => {
        throw new Error("store gone");
      },
    });
    expect(await engine.describeStatus?.({ sessionId: "s1" })).toBeUndefined();
    expect(engine.isQuarantined).toBe(false);
    expect(JSON.stringify(logger.records)).toContain("store gone");
  });
});

describe("onSessionDeleted through the guarded wrapper", () => {
  it("is forwarded, also once the engine is quarantined, and a failure quarantines nothing", async () => {
    const told: string[] = [];
    const { engine, logger } = await setupWith({
      assemble: async () => {
        throw new Error("assemble broke");
      },
      onSessionDeleted: async (params) => {
        told.push(`${params.sessionId} ${params.sessionKey}`);
        if (params.sessionId === "bad") throw new Error("store gone");
      },
    });
    await engine.assemble({ sessionId: "s1", messages: [], tokenBudget: 1_000 });
    expect(engine.isQuarantined).toBe(true);
    await engine.onSessionDeleted?.({ sessionId: "s1", sessionKey: "agent:main:main" });
    await engine.onSessionDeleted?.({ sessionId: "bad" });
    expect(told).toEqual(["s1 agent:main:main", "bad undefined"]);
    expect(JSON.stringify(logger.records)).toContain("store gone");
    expect((await setupWith({})).engine.onSessionDeleted).toBeUndefined();
  });

  it("never fails a failing engine's deletion for the host", async () => {
    const { engine } = await setupWith({
      onSessionDeleted: async () => {
        throw new Error("store gone");
      },
    });
    await expect(engine.onSessionDeleted?.({ sessionId: "s1" })).resolves.toBeUndefined();
    expect(engine.isQuarantined).toBe(false);
  });
});
