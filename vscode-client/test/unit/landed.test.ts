import { describe, expect, it } from "vitest";
import { changedLineRanges, invertDiff, textBefore } from "../../src/core/landed";

const before = "a\nb\nc\nd\ne\nf\ng\n";
const after = "a\nB\nc\nd\ne\nnew1\nnew2\nf\n";
// b -> B (line 2); g deleted at the end; two lines inserted before f.
const diff = [
  "--- x.py",
  "+++ x.py",
  "@@ -1,3 +1,3 @@",
  " a",
  "-b",
  "+B",
  " c",
  "@@ -5,3 +5,4 @@",
  " e",
  "+new1",
  "+new2",
  " f",
  "-g",
  "",
].join("\n");

describe("changedLineRanges", () => {
  it("gives the changed and added lines of the new text, merged into runs", () => {
    expect(changedLineRanges(diff, 8)).toEqual([
      { start: 1, end: 1 },
      // new1, new2, then the mark of g's deletion (after f, clamped to the last line): one run
      { start: 5, end: 7 },
    ]);
  });

  it("marks the line after a deletion in the middle", () => {
    const deletion = "@@ -1,3 +1,2 @@\n a\n-b\n c\n";
    expect(changedLineRanges(deletion, 2)).toEqual([{ start: 1, end: 1 }]);
  });

  it("marks nothing in an empty document or for an empty diff", () => {
    expect(changedLineRanges(diff, 0)).toEqual([]);
    expect(changedLineRanges("", 5)).toEqual([]);
  });

  it("handles a hunk that creates a document from nothing", () => {
    expect(changedLineRanges("@@ -0,0 +1,2 @@\n+x\n+y\n", 2)).toEqual([{ start: 0, end: 1 }]);
  });
});

describe("textBefore", () => {
  it("rebuilds the text before the edit from the text after it", () => {
    expect(textBefore(after, diff)).toBe(before);
  });

  it("keeps a last line without a newline", () => {
    const noEol = "@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n";
    expect(textBefore("new", noEol)).toBe("old");
  });

  it("is undefined when the document moved on", () => {
    expect(textBefore("something else entirely\n", diff)).toBeUndefined();
  });

  it("inverts a diff twice to itself", () => {
    expect(invertDiff(invertDiff(diff))).toBe(diff);
    expect(invertDiff(diff)).toContain("@@ -1,3 +1,3 @@\n a\n+b\n-B\n c\n@@ -5,4 +5,3 @@");
  });
});
