import { describe, expect, it } from "vitest";
import { DiffError, applyEdits, diffToEdits, parseUnifiedDiff, splitLines } from "../../src/core/diff";
import fixtures from "./fixtures/server-diffs.json";

describe("splitLines", () => {
  it("breaks on LF, CRLF and lone CR only, keeping terminators", () => {
    expect(splitLines("a\nb\r\nc\rd\x0ce\u2028f")).toEqual(["a\n", "b\r\n", "c\r", "d\x0ce\u2028f"]);
    expect(splitLines("")).toEqual([]);
    expect(splitLines("x\n")).toEqual(["x\n"]);
  });
});

describe("diffToEdits on the server's own diffs", () => {
  it.each(fixtures.map((f) => [f.name, f] as const))("%s: rebuilds the new text byte for byte", (_name, fixture) => {
    const edits = diffToEdits(fixture.old, fixture.diff);
    expect(applyEdits(fixture.old, edits)).toBe(fixture.new);
  });

  it("touches only the changed lines", () => {
    const fixture = fixtures.find((f) => f.name === "two hunks");
    const edits = diffToEdits(fixture?.old ?? "", fixture?.diff ?? "");
    expect(edits).toHaveLength(2);
    expect(edits.map((e) => e.newText)).toEqual(["line three\n", ""]);
  });

  it("gives no edits for an empty diff", () => {
    expect(diffToEdits("abc\n", "")).toEqual([]);
  });
});

describe("diffToEdits refusals", () => {
  const fixture = fixtures[0] as { old: string; diff: string };

  it("refuses a diff whose old side does not match the document", () => {
    expect(() => diffToEdits("a\nX\nc\n", fixture.diff)).toThrow(DiffError);
  });

  it("refuses a hunk whose counts do not match its lines", () => {
    expect(() => parseUnifiedDiff("@@ -1,3 +1,3 @@\n a\n-b\n+B\n")).toThrow(/announces/);
  });

  it("refuses garbage inside a hunk", () => {
    expect(() => parseUnifiedDiff("@@ -1 +1 @@\n?what\n")).toThrow(DiffError);
  });
});
