import { describe, expect, it } from "vitest";
import { instructionItems, readHistory, remember } from "../../src/core/history";

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
