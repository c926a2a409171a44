import { describe, expect, it } from "vitest";
import { LiveDiffs } from "../../src/core/liveDiff";

const changed = (key: string) => ({ kind: "changed", key });
const NONE = { kind: "none" };

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
    expect(diffs.receive(preview(A, 3, [line0]), open({ [A]: { version: 3, text: TEXT } }))).toEqual(changed(A));
    expect(diffs.sides(A)?.after).toBe('def bar(x):\n    """Adds one."""\n    return x + 1\n\n\nprint(foo(41))\n');
    // Each preview replaces the last: it is the change so far.
    expect(diffs.receive(preview(A, 3, [line0, call]), open({ [A]: { version: 3, text: TEXT } }))).toEqual(changed(A));
    expect(diffs.sides(A)?.after).toBe('def bar(x):\n    """Adds one."""\n    return x + 1\n\n\nprint(bar(41))\n');
  });

  it("skips a preview of another version, or one that does not fit the text", () => {
    const diffs = new LiveDiffs();
    diffs.started(A, TEXT);
    expect(diffs.receive(preview(A, 2, [line0]), open({ [A]: { version: 3, text: TEXT } }))).toEqual(NONE);
    const wrong = { ...call, oldText: "baz" };
    expect(diffs.receive(preview(A, 3, [wrong]), open({ [A]: { version: 3, text: TEXT } }))).toEqual(NONE);
    expect(diffs.receive({ nonsense: 1 }, open({}))).toEqual(NONE);
    expect(diffs.sides(A)?.after).toBe(TEXT);
  });

  it("follows every open document an edit across files previews", () => {
    const diffs = new LiveDiffs();
    diffs.started(A, TEXT);
    const texts = open({ [A]: { version: 1, text: TEXT }, [B]: { version: 7, text: "foo()\n" } });
    const bCall = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: "bar" };
    expect(diffs.receive(preview(B, 7, [bCall]), texts)).toEqual(changed(B));
    expect(diffs.sides(B)).toEqual({ before: "foo()\n", after: "bar()\n", done: false });
    expect(diffs.keys()).toEqual([A, B]);
  });

  it("freezes at done and when the edit ends; takes nothing while no edit runs", () => {
    const diffs = new LiveDiffs();
    diffs.started(A, TEXT);
    const texts = open({ [A]: { version: 3, text: TEXT } });
    diffs.receive(preview(A, 3, [call]), texts);
    expect(diffs.receive(preview(A, 3, [], true), texts)).toEqual(changed(A));
    expect(diffs.sides(A)?.done).toBe(true);
    expect(diffs.sides(A)?.after).toContain("print(bar(41))");
    diffs.ended();
    expect(diffs.isRunning()).toBe(false);
    expect(diffs.receive(preview(A, 3, [line0]), texts)).toEqual(NONE);
    expect(diffs.sides(A)?.after).toContain("print(bar(41))");
  });

  it("matches documents by the key it is given", () => {
    const diffs = new LiveDiffs((uri) => uri.replace("%3A", ":"));
    diffs.started("file:///c:/a.py", "foo\n");
    const hunk = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: "bar" };
    const key = diffs.receive(preview("file:///c%3A/a.py", 1, [hunk]), open({ "file:///c:/a.py": { version: 1, text: "foo\n" } }));
    expect(key).toEqual(changed("file:///c:/a.py"));
  });

  it("grows with every file an edit of four changes, the command's first, two of them not open (issue 39)", () => {
    const own = "file:///p/wrapping.py";
    const helptext = "file:///p/helptext.py";
    const init = "file:///p/__init__.py";
    const cli = "file:///p/cli.py";
    const diffs = new LiveDiffs();
    diffs.started(own, "wrap()\n");
    expect(diffs.title()).toBe("Complex Edit live diff: running…");
    const rename = (line: number, character: number, oldText: string, newText: string) => ({
      range: { start: { line, character }, end: { line, character: character + oldText.length } },
      oldText,
      newText,
    });
    const texts = open({ [own]: { version: 1, text: "wrap()\n" }, [helptext]: { version: 4, text: "# Peter Åstrand 🎉\r\nwrap()\r\n" } });
    // The other files change first: an open one with non-ASCII text and CRLF, then two not open.
    expect(diffs.receive(preview(helptext, 4, [rename(1, 0, "wrap", "fill")]), texts)).toEqual(changed(helptext));
    expect(diffs.sides(helptext)?.after).toBe("# Peter Åstrand 🎉\r\nfill()\r\n");
    const notOpen = (uri: string, hunks: unknown[]) => ({ textDocument: { uri, version: null }, hunks, done: false });
    expect(diffs.receive(notOpen(init, [rename(0, 15, "wrap", "fill")]), texts)).toEqual({ kind: "needsDisk", key: init });
    // A newer preview while the file is read: the latest is the one used.
    expect(diffs.receive(notOpen(init, [rename(0, 15, "wrap", "fill"), rename(1, 1, "wrap", "fill")]), texts)).toEqual({ kind: "needsDisk", key: init });
    expect(diffs.diskText(init, "from .x import wrap\t# ✨\n\twrap\n")).toEqual(changed(init));
    expect(diffs.sides(init)?.after).toBe("from .x import fill\t# ✨\n\tfill\n");
    expect(diffs.receive(notOpen(cli, [rename(0, 0, "wrap", "fill")]), texts)).toEqual({ kind: "needsDisk", key: cli });
    expect(diffs.diskText(cli, "wrap\n")).toEqual(changed(cli));
    // Later previews of a file not open use the text read once.
    expect(diffs.receive(notOpen(cli, [rename(0, 0, "wrap", "wrapped")]), texts)).toEqual(changed(cli));
    expect(diffs.sides(cli)?.after).toBe("wrapped\n");
    expect(diffs.receive(preview(own, 1, [rename(0, 0, "wrap", "fill")]), texts)).toEqual(changed(own));
    expect(diffs.keys()).toEqual([own, helptext, init, cli]);
    expect(diffs.title()).toBe("Complex Edit live diff: running…");
    diffs.ended("cancelled");
    expect(diffs.title()).toBe("Complex Edit live diff: cancelled");
    expect(diffs.sides(cli)).toEqual({ before: "wrap\n", after: "wrapped\n", done: true });
    // The next edit starts over.
    diffs.started(own, "fill()\n");
    expect(diffs.keys()).toEqual([own]);
    expect(diffs.status()).toBe("running");
    diffs.ended("failed");
    expect(diffs.title()).toBe("Complex Edit live diff: failed");
  });
});
