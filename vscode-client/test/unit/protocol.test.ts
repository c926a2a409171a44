import { describe, expect, it } from "vitest";
import { DOCUMENT_NOT_OPEN, type EditResult, INVALID_PARAMS, changedLinesOf, isDocumentNotOpen } from "../../src/core/protocol";

const span = (start: number, end: number) => ({ start, end });

describe("changedLinesOf", () => {
  it("reads the server's regions", () => {
    const changedLines = [
      { snapshot: span(1, 2), document: span(1, 3) },
      { snapshot: span(5, 5), document: span(6, 7) },
    ];
    expect(changedLinesOf({ success: true, diff: "…", changedLines })).toEqual(changedLines);
    expect(changedLinesOf({ success: true, changedLines: [] })).toEqual([]);
  });

  it("is undefined when the field is absent or not well formed", () => {
    expect(changedLinesOf({ success: true, diff: "@@ -1 +1 @@\n-a\n+b\n" })).toBeUndefined();
    for (const bad of [
      "1-2",
      [{ snapshot: span(1, 2) }],
      [{ snapshot: span(2, 1), document: span(1, 2) }],
      [{ snapshot: span(-1, 0), document: span(0, 0) }],
      [{ snapshot: span(0, 1.5), document: span(0, 1) }],
      [
        { snapshot: span(3, 4), document: span(3, 4) },
        { snapshot: span(1, 2), document: span(5, 6) },
      ],
    ]) {
      // A server's answer is not trusted to match its type: malformed spans are read as none.
      expect(changedLinesOf({ success: true, changedLines: bad as unknown as EditResult["changedLines"] })).toBeUndefined();
    }
  });
});

describe("isDocumentNotOpen", () => {
  it("reads the error's data code, not its text", () => {
    expect(isDocumentNotOpen(INVALID_PARAMS, { code: DOCUMENT_NOT_OPEN })).toBe(true);
    expect(isDocumentNotOpen(INVALID_PARAMS, { code: "something_else" })).toBe(false);
    expect(isDocumentNotOpen(INVALID_PARAMS, undefined)).toBe(false);
    expect(isDocumentNotOpen(-32603, { code: DOCUMENT_NOT_OPEN })).toBe(false);
    expect(DOCUMENT_NOT_OPEN).toBe("document_not_open");
  });
});
