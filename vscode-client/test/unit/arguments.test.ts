import { describe, expect, it } from "vitest";
import { ArgumentError, buildArguments, linesToRange } from "../../src/core/arguments";

const uri = "file:///work/a.py";

describe("buildArguments", () => {
  it("sends the document and the prompt, and no range without a selection", () => {
    expect(buildArguments({ uri, prompt: "rename foo to bar" })).toEqual({
      textDocument: { uri },
      prompt: "rename foo to bar",
    });
  });

  it("leaves out an empty selection (a bare cursor)", () => {
    const cursor = { start: { line: 3, character: 4 }, end: { line: 3, character: 4 } };
    expect(buildArguments({ uri, prompt: "x", selection: cursor }).range).toBeUndefined();
  });

  it("sends the selection as the range", () => {
    const selection = { start: { line: 1, character: 2 }, end: { line: 5, character: 0 } };
    expect(buildArguments({ uri, prompt: "x", selection }).range).toEqual(selection);
  });

  it("orders a selection made backwards", () => {
    const selection = { start: { line: 9, character: 1 }, end: { line: 2, character: 7 } };
    expect(buildArguments({ uri, prompt: "x", selection }).range).toEqual({
      start: { line: 2, character: 7 },
      end: { line: 9, character: 1 },
    });
  });

  it("copies only line and character from editor positions", () => {
    const position = (line: number, character: number) => ({ line, character, isBefore: () => false });
    const args = buildArguments({ uri, prompt: "x", selection: { start: position(0, 1), end: position(0, 3) } });
    expect(JSON.parse(JSON.stringify(args.range))).toEqual({ start: { line: 0, character: 1 }, end: { line: 0, character: 3 } });
    expect(Object.keys(args.range?.start ?? {})).toEqual(["line", "character"]);
  });

  it("marks dry runs and keeps the prompt as typed", () => {
    expect(buildArguments({ uri, prompt: "  add types  ", dryRun: true })).toEqual({
      textDocument: { uri },
      prompt: "  add types  ",
      dryRun: true,
    });
  });

  it("asks for review only when the command does, so the review setting applies otherwise", () => {
    expect(buildArguments({ uri, prompt: "x", review: true })).toEqual({ textDocument: { uri }, prompt: "x", review: true });
    expect(buildArguments({ uri, prompt: "x", review: false })).toEqual({ textDocument: { uri }, prompt: "x" });
  });

  it("sends otherFiles only when the command sets it (Edit Across Files), so the setting applies otherwise", () => {
    expect(buildArguments({ uri, prompt: "x", otherFiles: "edit" })).toEqual({ textDocument: { uri }, prompt: "x", otherFiles: "edit" });
    expect(buildArguments({ uri, prompt: "x" })).toEqual({ textDocument: { uri }, prompt: "x" });
  });

  it("asks for a proposal (Preview) only when the command does", () => {
    expect(buildArguments({ uri, prompt: "x", propose: true })).toEqual({ textDocument: { uri }, prompt: "x", propose: true });
    expect(buildArguments({ uri, prompt: "x", propose: false })).toEqual({ textDocument: { uri }, prompt: "x" });
  });

  it("refuses a blank instruction before asking the server", () => {
    expect(() => buildArguments({ uri, prompt: " \n\t" })).toThrow(ArgumentError);
  });
});

describe("linesToRange", () => {
  it("covers whole 1-based inclusive lines", () => {
    expect(linesToRange(3, 5)).toEqual({ start: { line: 2, character: 0 }, end: { line: 5, character: 0 } });
  });
  it("defaults to one line and orders reversed bounds", () => {
    expect(linesToRange(4)).toEqual({ start: { line: 3, character: 0 }, end: { line: 4, character: 0 } });
    expect(linesToRange(5, 3)).toEqual(linesToRange(3, 5));
  });
});
