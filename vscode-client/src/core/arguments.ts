/** Builds the `performComplexEdit` argument object from what the editor or a tool knows. */

import type { OtherFiles, PerformArgs, Range } from "./protocol";

export interface Selection {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface ArgumentInput {
  uri: string;
  prompt: string;
  /** The editor's selection; an empty one (start equals end) sends no range. */
  selection?: Selection;
  dryRun?: boolean;
  review?: boolean;
  /** Keep the change as a proposal for `complexEdit.applyReview` instead of applying it. */
  propose?: boolean;
  /** Sent only when given; the server's setting applies otherwise. */
  otherFiles?: OtherFiles;
}

export class ArgumentError extends Error {}

function isEmpty(selection: Selection): boolean {
  return (
    selection.start.line === selection.end.line &&
    selection.start.character === selection.end.character
  );
}

/** Orders the ends of a selection made backwards (the cursor above the anchor). */
function ordered(selection: Selection): Range {
  const { start, end } = selection;
  const backwards = start.line > end.line || (start.line === end.line && start.character > end.character);
  const [first, last] = backwards ? [end, start] : [start, end];
  return {
    start: { line: first.line, character: first.character },
    end: { line: last.line, character: last.character },
  };
}

export function buildArguments(input: ArgumentInput): PerformArgs {
  if (input.prompt.trim() === "") {
    throw new ArgumentError("The instruction is empty.");
  }
  const args: PerformArgs = { textDocument: { uri: input.uri }, prompt: input.prompt };
  if (input.selection !== undefined && !isEmpty(input.selection)) {
    args.range = ordered(input.selection);
  }
  if (input.dryRun === true) {
    args.dryRun = true;
  }
  if (input.review === true) {
    args.review = true;
  }
  if (input.propose === true) {
    args.propose = true;
  }
  if (input.otherFiles !== undefined) {
    args.otherFiles = input.otherFiles;
  }
  return args;
}

/**
 * The LSP range of 1-based inclusive lines `startLine..endLine`: from the start of the first line
 * to the start of the line after the last (the server reads an end at character 0 as "up to the
 * previous line").
 */
export function linesToRange(startLine: number, endLine: number = startLine): Range {
  const first = Math.min(startLine, endLine);
  const last = Math.max(startLine, endLine);
  return { start: { line: first - 1, character: 0 }, end: { line: last, character: 0 } };
}
