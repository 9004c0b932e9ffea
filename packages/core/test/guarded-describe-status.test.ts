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
