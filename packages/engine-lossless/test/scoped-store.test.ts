import { describe, expect, it } from "vitest";
import { scopeStoreToGrant } from "../src/subagents/scoped-store.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-scoped-");

describe("a subagent grant's view of the store", () => {
  it("searches only up to the grant, and newer matches take no places in the answer", async () => {
    const store = temp.open();
    // Ten old matches the grant covers, then thirty newer ones that match more strongly.
    const old = Array.from({ length: 10 }, (_, index) => textRecord("s", index + 1, `heron note ${index}`));
    const newer = Array.from({ length: 30 }, (_, index) =>
      textRecord("s", index + 11, `heron heron heron ${index}`),
    );
    await store.appendMessages("s", [...old, ...newer]);
    const scoped = scopeStoreToGrant(store, "s", 10);
    const hits = await scoped.searchMessages("s", ["heron"], 5);
    expect(hits).toHaveLength(5);
    expect(hits.every((hit) => hit.key <= 10)).toBe(true);
  });
});
