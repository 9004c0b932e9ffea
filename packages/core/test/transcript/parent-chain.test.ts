import { describe, expect, it } from "vitest";
import { parentChain } from "../../src/transcript/parent-chain.js";

const node = (id: string, parentId: string | null) => ({ id, parentId });
const ids = (chain: ReadonlyArray<{ id: string }>) => chain.map((entry) => entry.id);

describe("parentChain", () => {
  it("walks from the leaf back to the root, root first, leaving other branches out", () => {
    const nodes = new Map(
      [node("a", null), node("b", "a"), node("c", "b"), node("x", "a")].map((entry) => [entry.id, entry]),
    );
    expect(parentChain(nodes, "c")).toEqual({
      chain: [nodes.get("a"), nodes.get("b"), nodes.get("c")],
      missing: null,
      cycle: false,
    });
    expect(ids(parentChain(nodes, "x").chain)).toEqual(["a", "x"]);
    expect(parentChain(nodes, null)).toEqual({ chain: [], missing: null, cycle: false });
  });

  it("stops at a parent it cannot find, and names it", () => {
    const nodes = new Map([node("b", "gone"), node("c", "b")].map((entry) => [entry.id, entry]));
    const walk = parentChain(nodes, "c");
    expect(ids(walk.chain)).toEqual(["b", "c"]);
    expect(walk).toMatchObject({ missing: "gone", cycle: false });
    expect(parentChain(nodes, "nowhere")).toEqual({ chain: [], missing: "nowhere", cycle: false });
  });

  it("stops at the first entry met twice, so a cycle never repeats an entry", () => {
    const nodes = new Map([node("a", "c"), node("b", "a"), node("c", "b")].map((entry) => [entry.id, entry]));
    const walk = parentChain(nodes, "c");
    expect(ids(walk.chain)).toEqual(["a", "b", "c"]);
    expect(walk).toMatchObject({ missing: null, cycle: true });
  });
});
