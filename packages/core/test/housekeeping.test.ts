import { describe, expect, it } from "vitest";
import { isHousekeepingText, MEMORY_FLUSH_PROMPT_START, SILENT_REPLY_TOKEN } from "../src/index.js";

describe("housekeeping messages", () => {
  it("are a memory flush prompt from the user and a reply that is only the silent token", () => {
    expect(isHousekeepingText("user", `\n ${MEMORY_FLUSH_PROMPT_START}. Store durable memories now.`)).toBe(
      true,
    );
    expect(isHousekeepingText("assistant", ` ${SILENT_REPLY_TOKEN}\n`)).toBe(true);
  });

  it("are not a user asking about the flush, a reply that says more, or another role", () => {
    expect(isHousekeepingText("user", `Why did the ${MEMORY_FLUSH_PROMPT_START} run twice?`)).toBe(false);
    expect(isHousekeepingText("assistant", `${SILENT_REPLY_TOKEN}, but I stored two notes.`)).toBe(false);
    expect(isHousekeepingText("toolResult", SILENT_REPLY_TOKEN)).toBe(false);
    expect(isHousekeepingText("assistant", MEMORY_FLUSH_PROMPT_START)).toBe(false);
  });
});
