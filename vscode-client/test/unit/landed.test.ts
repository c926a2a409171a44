import { describe, expect, it } from "vitest";
import { changedLineRanges, textBefore } from "../../src/core/landed";
import type { ChangedLines } from "../../src/core/protocol";

function region(snapshot: [number, number], document: [number, number]): ChangedLines {
  return { snapshot: { start: snapshot[0], end: snapshot[1] }, document: { start: document[0], end: document[1] } };
}

const before = "a\nb\nc\nd\ne\nf\ng\n";
const after = "a\nB\nc\nd\ne\nnew1\nnew2\nf\n";
// b -> B (line 2); two lines inserted before f; g deleted at the end.
const changed = [region([1, 2], [1, 2]), region([5, 5], [5, 7]), region([6, 7], [8, 8])];

describe("changedLineRanges", () => {
  it("gives the changed and added lines of the new text, merged into runs", () => {
    expect(changedLineRanges(changed, 8)).toEqual([
      { start: 1, end: 1 },
      // new1, new2, then the mark of g's deletion (after f, clamped to the last line): one run
      { start: 5, end: 7 },
    ]);
  });

  it("marks the line after a deletion in the middle", () => {
    expect(changedLineRanges([region([1, 2], [1, 1])], 2)).toEqual([{ start: 1, end: 1 }]);
  });

  it("marks nothing in an empty document or for no regions", () => {
    expect(changedLineRanges(changed, 0)).toEqual([]);
    expect(changedLineRanges([], 5)).toEqual([]);
  });

  it("handles a region that creates a document from nothing", () => {
    expect(changedLineRanges([region([0, 0], [0, 2])], 2)).toEqual([{ start: 0, end: 1 }]);
  });

  it("keeps separate regions apart and joins adjacent ones", () => {
    expect(changedLineRanges([region([0, 1], [0, 1]), region([3, 4], [3, 4])], 10)).toEqual([
      { start: 0, end: 0 },
      { start: 3, end: 3 },
    ]);
    expect(changedLineRanges([region([0, 1], [0, 1]), region([2, 3], [1, 2])], 10)).toEqual([{ start: 0, end: 1 }]);
  });
});

describe("textBefore", () => {
  it("rebuilds the text before the edit from the text after it and the snapshot", () => {
    expect(textBefore(after, before, changed)).toBe(before);
  });

  it("keeps a last line without a newline, and CRLF", () => {
    expect(textBefore("new", "old", [region([0, 1], [0, 1])])).toBe("old");
    expect(textBefore("a\r\nB\r\nb2\r\nc\r\n", "a\r\nb\r\nc\r\n", [region([1, 2], [1, 3])])).toBe("a\r\nb\r\nc\r\n");
    expect(textBefore("a\nb\n", "a\nb", [region([1, 2], [1, 2])])).toBe("a\nb");
  });

  it("keeps what the user typed elsewhere while the edit ran", () => {
    // The user added a line at the top; the server rebased b -> B onto it.
    expect(textBefore("top\na\nB\nc\n", "a\nb\nc\n", [region([1, 2], [2, 3])])).toBe("top\na\nb\nc\n");
  });

  it("gives back a deletion and an insertion at the end", () => {
    expect(textBefore("a\n", "a\nb\n", [region([1, 2], [1, 1])])).toBe("a\nb\n");
    expect(textBefore("a\nb\nz\n", "a\nb\n", [region([2, 2], [2, 3])])).toBe("a\nb\n");
    expect(textBefore("", "x\n", [region([0, 1], [0, 0])])).toBe("x\n");
  });

  it("is undefined when a region lies outside the document (it moved on)", () => {
    expect(textBefore("x\n", before, [region([1, 2], [5, 6])])).toBeUndefined();
    expect(textBefore(after, "a\n", [region([5, 9], [1, 2])])).toBeUndefined();
  });
});
