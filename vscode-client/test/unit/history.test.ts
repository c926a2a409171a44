import { describe, expect, it } from "vitest";
import { acceptInstruction, instructionItems, readHistory, remember } from "../../src/core/history";

describe("remember", () => {
  it("puts the newest first without duplicates and keeps the limit", () => {
    expect(remember(["b", "a"], "a")).toEqual(["a", "b"]);
    expect(remember(["c", "b", "a"], "d", 3)).toEqual(["d", "c", "b"]);
    expect(remember(["a"], "   ")).toEqual(["a"]);
  });
  it("reads only strings from what was stored", () => {
    expect(readHistory(["a", 3, null, "", "b"])).toEqual(["a", "b"]);
    expect(readHistory({})).toEqual([]);
  });
});

describe("instructionItems", () => {
  it("lists the history when nothing is typed", () => {
    expect(instructionItems("", ["x", "y"]).map((i) => [i.label, i.typed])).toEqual([
      ["x", false],
      ["y", false],
    ]);
  });
  it("puts what was typed first, and drops the same history entry", () => {
    expect(instructionItems("y", ["x", "y"]).map((i) => [i.label, i.typed])).toEqual([
      ["y", true],
      ["x", false],
    ]);
  });
});

describe("acceptInstruction", () => {
  const recent = { label: "rename foo to bar", description: "recent", typed: false };
  const typed = (label: string) => ({ label, typed: true });

  it("does not run anything on Enter in an empty box", () => {
    expect(acceptInstruction("", undefined)).toEqual({ kind: "stay" });
    expect(acceptInstruction("   ", typed("   "))).toEqual({ kind: "stay" });
  });

  it("puts a recalled instruction in the box to edit instead of running it", () => {
    // An empty box with the most recent instruction active: Enter fills, never runs.
    expect(acceptInstruction("", recent)).toEqual({ kind: "fill", instruction: "rename foo to bar" });
    expect(acceptInstruction("ren", recent)).toEqual({ kind: "fill", instruction: "rename foo to bar" });
  });

  it("runs the box's text, edited after a recall", () => {
    expect(acceptInstruction("rename foo to baz", typed("rename foo to ba"))).toEqual({
      kind: "run",
      instruction: "rename foo to baz",
    });
  });

  it("after a fill, the box's entry comes first, so the next Enter runs it", () => {
    const items = instructionItems("rename foo to bar", ["rename foo to bar", "other"]);
    expect(items[0]).toMatchObject({ label: "rename foo to bar", typed: true });
    expect(acceptInstruction("rename foo to bar", items[0])).toEqual({ kind: "run", instruction: "rename foo to bar" });
  });
});
