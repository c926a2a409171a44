import { describe, expect, it } from "vitest";
import { LiveDiffs } from "../../src/core/liveDiff";

const A = "file:///p/a.py";
const B = "file:///p/b.py";
const TEXT = "def foo(x):\n    return x + 1\n\n\nprint(foo(41))\n";

function preview(uri: string, version: number, hunks: unknown[], done = false): unknown {
  return { textDocument: { uri, version }, hunks, done };
}

const line0 = {
  range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
  newText: "def bar(x):\n    \"\"\"Adds one.\"\"\"\n",
};
const call = { range: { start: { line: 4, character: 6 }, end: { line: 4, character: 9 } }, newText: "bar", oldText: "foo" };

describe("LiveDiffs", () => {
  const open = (texts: Record<string, { version: number; text: string }>) => (key: string) => texts[key];

  it("starts empty, then follows each preview whole (every line of a multi-line change)", () => {
    const diffs = new LiveDiffs();
    diffs.started(A, TEXT);
    expect(diffs.sides(A)).toEqual({ before: TEXT, after: TEXT, done: false });
    expect(diffs.receive(preview(A, 3, [line0]), open({ [A]: { version: 3, text: TEXT } }))).toBe(A);
    expect(diffs.sides(A)?.after).toBe('def bar(x):\n    """Adds one."""\n    return x + 1\n\n\nprint(foo(41))\n');
    // Each preview replaces the last: it is the change so far.
    expect(diffs.receive(preview(A, 3, [line0, call]), open({ [A]: { version: 3, text: TEXT } }))).toBe(A);
    expect(diffs.sides(A)?.after).toBe('def bar(x):\n    """Adds one."""\n    return x + 1\n\n\nprint(bar(41))\n');
  });

  it("skips a preview of another version, or one that does not fit the text", () => {
    const diffs = new LiveDiffs();
    diffs.started(A, TEXT);
    expect(diffs.receive(preview(A, 2, [line0]), open({ [A]: { version: 3, text: TEXT } }))).toBeUndefined();
    const wrong = { ...call, oldText: "baz" };
    expect(diffs.receive(preview(A, 3, [wrong]), open({ [A]: { version: 3, text: TEXT } }))).toBeUndefined();
    expect(diffs.receive({ nonsense: 1 }, open({}))).toBeUndefined();
    expect(diffs.sides(A)?.after).toBe(TEXT);
  });

  it("follows every open document an edit across files previews", () => {
    const diffs = new LiveDiffs();
    diffs.started(A, TEXT);
    const texts = open({ [A]: { version: 1, text: TEXT }, [B]: { version: 7, text: "foo()\n" } });
    const bCall = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: "bar" };
    expect(diffs.receive(preview(B, 7, [bCall]), texts)).toBe(B);
    expect(diffs.sides(B)).toEqual({ before: "foo()\n", after: "bar()\n", done: false });
    expect(diffs.keys()).toEqual([A, B]);
  });

  it("freezes at done and when the edit ends; takes nothing while no edit runs", () => {
    const diffs = new LiveDiffs();
    diffs.started(A, TEXT);
    const texts = open({ [A]: { version: 3, text: TEXT } });
    diffs.receive(preview(A, 3, [call]), texts);
    expect(diffs.receive(preview(A, 3, [], true), texts)).toBe(A);
    expect(diffs.sides(A)?.done).toBe(true);
    expect(diffs.sides(A)?.after).toContain("print(bar(41))");
    diffs.ended();
    expect(diffs.isRunning()).toBe(false);
    expect(diffs.receive(preview(A, 3, [line0]), texts)).toBeUndefined();
    expect(diffs.sides(A)?.after).toContain("print(bar(41))");
    expect(diffs.closed(A)).toBe(true);
    expect(diffs.sides(A)).toBeUndefined();
  });

  it("matches documents by the key it is given", () => {
    const diffs = new LiveDiffs((uri) => uri.replace("%3A", ":"));
    diffs.started("file:///c:/a.py", "foo\n");
    const hunk = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: "bar" };
    const key = diffs.receive(preview("file:///c%3A/a.py", 1, [hunk]), open({ "file:///c:/a.py": { version: 1, text: "foo\n" } }));
    expect(key).toBe("file:///c:/a.py");
  });
});
