/**
 * What an applied edit's unified diff says about the document after it: the lines it changed
 * (to highlight them for a moment) and the text before it (for "Show Diff").
 */

import { applyEdits, diffToEdits, parseUnifiedDiff, splitLines } from "./diff";

/** 0-based, inclusive lines of the document after the edit. */
export interface LineRange {
  start: number;
  end: number;
}

/** The new-side line indexes each hunk added or changed; a pure deletion marks the line after it. */
function changedLineIndexes(diff: string): number[] {
  const marked: number[] = [];
  for (const hunk of parseUnifiedDiff(diff)) {
    let line = hunk.newIndex;
    let inRun = false;
    let added = false;
    const closeRun = (): void => {
      if (inRun && !added) {
        marked.push(line);
      }
      inRun = false;
      added = false;
    };
    for (const entry of hunk.lines) {
      if (entry.kind === " ") {
        closeRun();
        line++;
        continue;
      }
      inRun = true;
      if (entry.kind === "+") {
        added = true;
        marked.push(line++);
      }
    }
    closeRun();
  }
  return marked;
}

/**
 * The line ranges to highlight after the edit of `diff` landed in a document of `lineCount`
 * lines: the added or changed lines, merged into runs, clamped to the document.
 */
export function changedLineRanges(diff: string, lineCount: number): LineRange[] {
  if (lineCount <= 0) {
    return [];
  }
  const lines = [...new Set(changedLineIndexes(diff).map((line) => Math.min(Math.max(line, 0), lineCount - 1)))].sort(
    (a, b) => a - b,
  );
  const ranges: LineRange[] = [];
  for (const line of lines) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && line <= last.end + 1) {
      last.end = line;
    } else {
      ranges.push({ start: line, end: line });
    }
  }
  return ranges;
}

const HEADER = /^@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@(.*)$/s;

/** The diff that undoes `diff`: old and new sides swapped. */
export function invertDiff(diff: string): string {
  let inHunk = false;
  return splitLines(diff)
    .map((line) => {
      const header = HEADER.exec(line);
      if (header !== null) {
        inHunk = true;
        return `@@ -${header[2] ?? ""} +${header[1] ?? ""} @@${header[3] ?? ""}`;
      }
      if (!inHunk) {
        return line;
      }
      if (line.startsWith("-")) {
        return `+${line.slice(1)}`;
      }
      return line.startsWith("+") ? `-${line.slice(1)}` : line;
    })
    .join("");
}

/**
 * The document's text before the edit of `diff`, from its text `after` it; undefined when
 * `after` no longer matches the diff's new side (the document moved on).
 */
export function textBefore(after: string, diff: string): string | undefined {
  try {
    return applyEdits(after, diffToEdits(after, invertDiff(diff)));
  } catch {
    return undefined;
  }
}
