/**
 * What an applied edit changed, from the result's `changedLines`: the lines to highlight for a
 * moment, and the text before it (for "Show Diff").
 */

import { splitLines } from "./hunks";
import type { ChangedLines } from "./protocol";

/** 0-based, inclusive lines of the document after the edit. */
export interface LineRange {
  start: number;
  end: number;
}

/**
 * The line ranges to highlight in a document of `lineCount` lines after the edit landed: the
 * lines holding new text (a pure deletion marks the line that took its place), merged into runs,
 * clamped to the document.
 */
export function changedLineRanges(changed: readonly ChangedLines[], lineCount: number): LineRange[] {
  if (lineCount <= 0) {
    return [];
  }
  const clamp = (line: number): number => Math.min(Math.max(line, 0), lineCount - 1);
  const ranges: LineRange[] = [];
  for (const { document } of changed) {
    const start = clamp(document.start);
    const end = clamp(Math.max(document.end - 1, document.start));
    const last = ranges[ranges.length - 1];
    if (last !== undefined && start <= last.end + 1) {
      last.end = Math.max(last.end, end);
    } else {
      ranges.push({ start, end });
    }
  }
  return ranges;
}

/**
 * The document's text before the edit, from its text `after` the edit and the `snapshot` the
 * edit was computed from: each changed region's lines of `after` go back to the snapshot's.
 * Text the user typed elsewhere meanwhile stays. Undefined when a region lies outside either
 * text (the document moved on).
 */
export function textBefore(after: string, snapshot: string, changed: readonly ChangedLines[]): string | undefined {
  const afterLines = splitLines(after);
  const snapshotLines = splitLines(snapshot);
  // A region may end on the empty line after a final newline, which splitLines does not list.
  const fits = (end: number, lines: readonly string[]): boolean => end <= lines.length + 1;
  const parts: string[] = [];
  let cursor = 0;
  for (const { snapshot: old, document } of changed) {
    if (document.start < cursor || !fits(document.end, afterLines) || !fits(old.end, snapshotLines)) {
      return undefined;
    }
    parts.push(...afterLines.slice(cursor, document.start), ...snapshotLines.slice(old.start, old.end));
    cursor = document.end;
  }
  parts.push(...afterLines.slice(cursor));
  return parts.join("");
}
