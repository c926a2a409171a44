import { describe, expect, it } from "vitest";
import { HunkError, applyEdits, applyHunks, asHunks, hunksFor, hunksToEdits, splitLines } from "../../src/core/hunks";
import fixtures from "./fixtures/server-hunks.json";

describe("splitLines", () => {
  it("breaks on LF, CRLF and lone CR only, keeping terminators", () => {
    expect(splitLines("a\nb\r\nc\rd\x0ce\u2028f")).toEqual(["a\n", "b\r\n", "c\r", "d\x0ce\u2028f"]);
    expect(splitLines("")).toEqual([]);
    expect(splitLines("x\n")).toEqual(["x\n"]);
  });
});

describe("hunksToEdits on the server's own hunks", () => {
  it.each(fixtures.map((f) => [f.name, f] as const))("%s: rebuilds the new text byte for byte", (_name, fixture) => {
    expect(applyHunks(fixture.old, fixture.hunks)).toBe(fixture.new);
  });

  it("touches only the changed lines", () => {
    const fixture = fixtures.find((f) => f.name === "two hunks");
    expect(fixture).toBeDefined();
    const edits = hunksToEdits(fixture?.old ?? "", fixture?.hunks ?? []);
    expect(edits).toHaveLength(2);
    for (const edit of edits) {
      expect(edit.end - edit.start).toBeLessThan(20);
    }
  });

  it("applies any subset of the hunks", () => {
    const fixture = fixtures.find((f) => f.name === "two hunks");
    const [first] = fixture?.hunks ?? [];
    expect(applyHunks(fixture?.old ?? "", first === undefined ? [] : [first])).toBe(
      (fixture?.old ?? "").replace("line 3\n", "line three\n"),
    );
  });
});

describe("hunksToEdits refuses what does not fit", () => {
  const range = (l1: number, c1: number, l2: number, c2: number) => ({
    start: { line: l1, character: c1 },
    end: { line: l2, character: c2 },
  });

  it("a hunk whose old text is not at its range", () => {
    expect(() => hunksToEdits("a\nb\n", [{ range: range(1, 0, 2, 0), newText: "B\n", oldText: "x\n" }])).toThrow(HunkError);
  });

  it("hunks out of order, or past the end", () => {
    const two = [
      { range: range(1, 0, 2, 0), newText: "B\n" },
      { range: range(0, 0, 1, 0), newText: "A\n" },
    ];
    expect(() => hunksToEdits("a\nb\n", two)).toThrow(HunkError);
    expect(() => hunksToEdits("a\nb\n", [{ range: range(5, 0, 5, 0), newText: "z" }])).toThrow(HunkError);
    expect(() => hunksToEdits("a\nb\n", [{ range: range(0, 4, 0, 4), newText: "z" }])).toThrow(HunkError);
  });

  it("counts characters in UTF-16 code units", () => {
    const text = "x = '😀' + old\n";
    const edits = hunksToEdits(text, [{ range: range(0, 11, 0, 14), newText: "new", oldText: "old" }]);
    expect(applyEdits(text, edits)).toBe("x = '😀' + new\n");
  });
});

describe("asHunks and hunksFor", () => {
  const own = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, newText: "A" };
  const other = { ...own, uri: "file:///p/b.py" };

  it("reads well-formed hunks only", () => {
    expect(asHunks([own, other])).toEqual([own, other]);
    expect(asHunks([{ ...own, newText: 3 }])).toBeUndefined();
    expect(asHunks(undefined)).toBeUndefined();
  });

  it("groups the hunks by document, those without uri on the command's own", () => {
    const same = (a: string, b: string): boolean => a === b;
    expect(hunksFor([own, other], "file:///p/a.py", true, same)).toEqual([own]);
    expect(hunksFor([own, other], "file:///p/b.py", false, same)).toEqual([other]);
  });
});
