import { describe, expect, it } from "vitest";
import {
  LABEL_CHARS,
  LivePreviews,
  type PreviewHunk,
  asPreviewParams,
  decorationFor,
  decorationsFor,
  layoutHunk,
} from "../../src/core/livePreview";
import manifest from "../../package.json";

const TEXT = ["def foo(x):", "    return x + 1", "", "", "print(foo(41))", ""];
const lineAt = (line: number): string => TEXT[line] ?? "";
const COUNT = TEXT.length; // a final line break leaves an empty last line, as in VS Code

function hunk(start: [number, number], end: [number, number], newText: string): PreviewHunk {
  return {
    range: { start: { line: start[0], character: start[1] }, end: { line: end[0], character: end[1] } },
    newText,
  };
}

const URI = "file:///project/doc.py";

function notification(version: number | undefined, hunks: PreviewHunk[], done = false): unknown {
  return { textDocument: { uri: URI, version }, hunks, done };
}

describe("asPreviewParams", () => {
  it("reads the contract's shape", () => {
    const h = hunk([0, 0], [1, 0], "def bar(x):\n");
    expect(asPreviewParams(notification(3, [h]))).toEqual({ uri: URI, version: 3, hunks: [h], done: false });
    expect(asPreviewParams({ textDocument: { uri: URI, version: 4 }, done: true })).toEqual({
      uri: URI,
      version: 4,
      hunks: [],
      done: true,
    });
  });

  it("refuses what is not one (nothing is drawn for it)", () => {
    expect(asPreviewParams(undefined)).toBeUndefined();
    expect(asPreviewParams({ hunks: [] })).toBeUndefined();
    expect(asPreviewParams({ textDocument: { uri: 5 } })).toBeUndefined();
    expect(asPreviewParams(notification(1, [{ range: { start: { line: -1, character: 0 } }, newText: "x" }] as never))).toBeUndefined();
    expect(asPreviewParams(notification(1, [{ range: hunk([0, 0], [0, 1], "").range }] as never))).toBeUndefined();
  });
});

describe("layoutHunk", () => {
  it("gives whole lines for a line, a word and an insertion", () => {
    expect(layoutHunk(hunk([0, 0], [1, 0], "def bar(x):\n"), lineAt, COUNT)).toEqual({
      first: 0,
      last: 0,
      newLines: ["def bar(x):"],
    });
    expect(layoutHunk(hunk([4, 6], [4, 9], "bar"), lineAt, COUNT)).toEqual({
      first: 4,
      last: 4,
      newLines: ["print(bar(41))"],
    });
    expect(layoutHunk(hunk([2, 0], [2, 0], "# a\n# b\n"), lineAt, COUNT)).toEqual({
      first: 2,
      last: 1,
      newLines: ["# a", "# b"],
    });
  });

  it("counts characters in UTF-16 code units, like VS Code", () => {
    const line = "s = '😀' + foo";
    const at = (): string => line;
    // 😀 is two UTF-16 code units: `foo` starts at character 11.
    expect(layoutHunk(hunk([0, 11], [0, 14], "bar"), at, 1).newLines).toEqual(["s = '😀' + bar"]);
  });

  it("gives no new lines for lines removed, and reads CRLF as line breaks", () => {
    expect(layoutHunk(hunk([2, 0], [4, 0], ""), lineAt, COUNT)).toEqual({ first: 2, last: 3, newLines: [] });
    expect(layoutHunk(hunk([0, 0], [1, 0], "a\r\nb\r\n"), lineAt, COUNT).newLines).toEqual(["a", "b"]);
  });
});

describe("decorationFor", () => {
  it("colours the lines being replaced and labels the last one with the new text", () => {
    expect(decorationFor(hunk([0, 0], [1, 0], "def bar(x):\n"), lineAt, COUNT)).toEqual({
      changed: { first: 0, last: 0 },
      anchorLine: 0,
      label: "→ def bar(x):",
      newText: "def bar(x):",
    });
  });

  it("shows the first line of a multi-line change and how many more there are", () => {
    const decoration = decorationFor(hunk([0, 0], [2, 0], "def bar(x):\n    y = x\n    return y + 1\n"), lineAt, COUNT);
    expect(decoration?.changed).toEqual({ first: 0, last: 1 });
    expect(decoration?.anchorLine).toBe(1);
    expect(decoration?.label).toBe("→ def bar(x): (+2 lines)");
    expect(decoration?.newText).toBe("def bar(x):\n    y = x\n    return y + 1");
    expect(decorationFor(hunk([0, 0], [1, 0], "a\n  b\n"), lineAt, COUNT)?.label).toBe("→ a (+1 line)");
  });

  it("labels an insertion on the line above it, or above the first line", () => {
    expect(decorationFor(hunk([2, 0], [2, 0], "# added\n"), lineAt, COUNT)).toEqual({
      changed: undefined,
      anchorLine: 1,
      label: "+ # added",
      newText: "# added",
    });
    expect(decorationFor(hunk([0, 0], [0, 0], "import os\n"), lineAt, COUNT)?.label).toBe("+ import os (above)");
    expect(decorationFor(hunk([0, 0], [0, 0], "import os\n"), lineAt, COUNT)?.anchorLine).toBe(0);
  });

  it("says when lines are removed, and skips an empty insertion", () => {
    expect(decorationFor(hunk([2, 0], [4, 0], ""), lineAt, COUNT)).toEqual({
      changed: { first: 2, last: 3 },
      anchorLine: 3,
      label: "→ (removed)",
      newText: "",
    });
    expect(decorationFor(hunk([2, 0], [2, 0], ""), lineAt, COUNT)).toBeUndefined();
  });

  it("shortens a long line and keeps every line in range", () => {
    const long = "x".repeat(LABEL_CHARS + 20);
    const label = decorationFor(hunk([0, 0], [1, 0], `${long}\n`), lineAt, COUNT)?.label ?? "";
    expect(label.length).toBe(2 + LABEL_CHARS);
    expect(label.endsWith("…")).toBe(true);
    const past = decorationFor(hunk([4, 0], [9, 0], "end\n"), lineAt, COUNT);
    expect(past?.changed).toEqual({ first: 4, last: COUNT - 1 });
    expect(decorationFor(hunk([0, 0], [1, 0], "a\n"), lineAt, 0)).toBeUndefined();
  });

  it("lays out a hunk after astral and non-ASCII characters in UTF-16 units, on a CRLF line", () => {
    const line = 'A = "🎉 Peter Åstrand"; NAME = 1';
    const at = line.indexOf("NAME"); // UTF-16 units: the emoji counts 2
    const change = hunk([0, at], [0, at + 4], "AUTHOR");
    const shape = layoutHunk(change, () => line, 1);
    expect(shape.newLines).toEqual(['A = "🎉 Peter Åstrand"; AUTHOR = 1']);
    expect(decorationFor(change, () => line, 2)?.label).toBe('→ A = "🎉 Peter Åstrand"; AUTHOR = 1');
  });

  it("maps a preview's hunks in order", () => {
    const hunks = [hunk([0, 0], [1, 0], "def bar(x):\n"), hunk([2, 0], [2, 0], ""), hunk([4, 6], [4, 9], "bar")];
    expect(decorationsFor(hunks, lineAt, COUNT).map((d) => d.label)).toEqual(["→ def bar(x):", "→ print(bar(41))"]);
  });
});

describe("LivePreviews", () => {
  const h = [hunk([0, 0], [1, 0], "def bar(x):\n")];
  const at = (version: number) => (): number => version;

  it("draws a preview on the document's version while an edit runs, and each one replaces the last", () => {
    const previews = new LivePreviews();
    previews.started(URI);
    expect(previews.receive(notification(3, h), at(3), true)).toEqual({ kind: "draw", uri: URI, hunks: h });
    const next = [hunk([4, 6], [4, 9], "bar")];
    expect(previews.receive(notification(3, next), at(3), true)).toEqual({ kind: "draw", uri: URI, hunks: next });
  });

  it("skips a preview computed for another version (or a closed document), keeping the one shown", () => {
    const previews = new LivePreviews();
    previews.started(URI);
    previews.receive(notification(3, h), at(3), true);
    expect(previews.receive(notification(3, h), at(4), true)).toEqual({ kind: "none" });
    expect(previews.receive(notification(5, h), at(4), true)).toEqual({ kind: "none" });
    expect(previews.receive(notification(undefined, h), at(4), true)).toEqual({ kind: "none" });
    expect(previews.receive(notification(3, h), () => undefined, true)).toEqual({ kind: "none" });
    expect(previews.redraw(URI, 3)).toEqual({ kind: "draw", uri: URI, hunks: h });
  });

  it("clears on done, at the end of the edit, and when the document closes", () => {
    const previews = new LivePreviews();
    previews.started(URI);
    previews.receive(notification(3, h), at(3), true);
    expect(previews.receive(notification(3, [], true), at(3), true)).toEqual({ kind: "clear", uri: URI });
    expect(previews.redraw(URI, 3)).toEqual({ kind: "none" });

    previews.receive(notification(3, h), at(3), true);
    expect(previews.ended(URI)).toEqual([{ kind: "clear", uri: URI }]);
    expect(previews.redraw(URI, 3)).toEqual({ kind: "none" });

    previews.started(URI);
    previews.receive(notification(3, h), at(3), true);
    expect(previews.closed(URI)).toEqual({ kind: "clear", uri: URI });
    expect(previews.redraw(URI, 3)).toEqual({ kind: "none" });
  });

  it("keeps the preview until the last of several edits of the document ends", () => {
    const previews = new LivePreviews();
    previews.started(URI);
    previews.started(URI); // a second one, refused as busy by the server
    previews.receive(notification(3, h), at(3), true);
    expect(previews.ended(URI)).toEqual([]);
    expect(previews.redraw(URI, 3)).toEqual({ kind: "draw", uri: URI, hunks: h });
    expect(previews.ended(URI)).toEqual([{ kind: "clear", uri: URI }]);
  });

  it("draws every other open document an edit across files changes (helptext.py got none: issue 39)", () => {
    // The edit runs on wrapping.py; the server previews helptext.py, open in another editor,
    // whose text is not ASCII. Before, only the command's own document was drawn.
    const previews = new LivePreviews();
    const helptext = "file:///ws/pkg/helptext.py";
    previews.started(URI);
    const peter = [{ range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, newText: 'AUTHOR = "🎉 Peter Åstrand"\n', oldText: 'NAME = "🎉 Peter Åstrand"\n' }];
    const sent = { textDocument: { uri: helptext, version: 7 }, hunks: peter, done: false };
    expect(previews.receive(sent, (uri) => (uri === helptext ? 7 : 3), true)).toEqual({ kind: "draw", uri: helptext, hunks: peter });
    // A file not open (version null) has no editor to draw in.
    const disk = { textDocument: { uri: "file:///ws/pkg/other.py", version: null }, hunks: peter, done: false };
    expect(previews.receive(disk, () => 1, true)).toEqual({ kind: "none" });
    // The end of the edit clears its own document and every other one it drew.
    expect(previews.ended(URI)).toEqual([{ kind: "clear", uri: URI }, { kind: "clear", uri: helptext }]);
    expect(previews.redraw(helptext, 7)).toEqual({ kind: "none" });
  });

  it("draws nothing when no edit of this client runs, or when the setting is off", () => {
    const previews = new LivePreviews();
    expect(previews.receive(notification(3, h), at(3), true)).toEqual({ kind: "clear", uri: URI });
    previews.started(URI);
    expect(previews.receive(notification(3, h), at(3), false)).toEqual({ kind: "clear", uri: URI });
    expect(previews.receive({ nonsense: true }, at(3), true)).toEqual({ kind: "none" });
  });

  it("matches documents by the key it is given, and clears everything when the server stops", () => {
    const previews = new LivePreviews((uri) => uri.replace("%3A", ":"));
    previews.started("file:///c:/doc.py");
    const sent = { textDocument: { uri: "file:///c%3A/doc.py", version: 1 }, hunks: h };
    expect(previews.receive(sent, at(1), true)).toEqual({ kind: "draw", uri: "file:///c:/doc.py", hunks: h });
    expect(previews.clearAll()).toEqual([{ kind: "clear", uri: "file:///c:/doc.py" }]);
    expect(previews.clearAll()).toEqual([]);
  });
});

describe("the manifest", () => {
  it("declares the setting and the themable colours the preview uses", () => {
    const properties = manifest.contributes.configuration.properties as unknown as Record<string, unknown>;
    expect(properties["complexEdit.livePreview"]).toMatchObject({ type: "boolean", default: true });
    const colors = manifest.contributes.colors.map((color) => color.id);
    expect(colors).toEqual(["complexEdit.previewChangedBackground", "complexEdit.previewTextForeground"]);
  });
});
