/**
 * The server's hunks (`{range, newText, oldText?}` in the coordinates of one version of a
 * document) read against that document's text, as offset edits: a dry run's proposal shown in
 * VS Code's diff view and applied without asking the model again, and the live diff.
 *
 * Positions are LSP positions in UTF-16 code units (a JavaScript string's own units); lines
 * break at `\n`, `\r\n` and `\r`, as LSP says.
 */

import type { Range } from "./protocol";

/** One proposed change. `uri` names another document than the command's own (several files). */
export interface ProposedHunk {
  id?: number;
  uri?: string;
  range: Range;
  newText: string;
  oldText?: string;
  label?: string;
}

/** Replace `text.slice(start, end)` with `newText` (offsets into the original text). */
export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

export class HunkError extends Error {}

/** Splits into lines that keep their terminators, breaking on `\r\n`, `\r` and `\n` (LSP rules). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 /* \n */ || ch === 13 /* \r */) {
      if (ch === 13 && text.charCodeAt(i + 1) === 10) {
        i++;
      }
      lines.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) {
    lines.push(text.slice(start));
  }
  return lines;
}

function isPosition(value: unknown): boolean {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { line, character } = value as Record<string, unknown>;
  return Number.isInteger(line) && Number.isInteger(character) && (line as number) >= 0 && (character as number) >= 0;
}

function isHunk(value: unknown): value is ProposedHunk {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { range, newText, oldText, uri } = value as Record<string, unknown>;
  if (typeof range !== "object" || range === null || typeof newText !== "string") {
    return false;
  }
  if ((oldText !== undefined && typeof oldText !== "string") || (uri !== undefined && typeof uri !== "string")) {
    return false;
  }
  const { start, end } = range as Record<string, unknown>;
  return isPosition(start) && isPosition(end);
}

/** The answer's `hunks`, or undefined when there are none or one is not well formed. */
export function asHunks(value: unknown): ProposedHunk[] | undefined {
  return Array.isArray(value) && (value as unknown[]).every(isHunk) ? (value as ProposedHunk[]) : undefined;
}

/**
 * The hunks of the document `uri`: those naming it, and those naming none when it is the
 * command's own document (`own`). `same` compares two URIs (VS Code and the server may spell one
 * differently).
 */
export function hunksFor(hunks: readonly ProposedHunk[], uri: string, own: boolean, same: (a: string, b: string) => boolean): ProposedHunk[] {
  return hunks.filter((hunk) => (hunk.uri === undefined ? own : same(hunk.uri, uri)));
}

/** The offset of an LSP position in `text` (whose lines are `lines`, starting at `starts`). */
function offsetOf(position: Range["start"], lines: readonly string[], starts: readonly number[], length: number): number {
  const line = lines[position.line];
  if (line === undefined) {
    if (position.line === lines.length && position.character === 0) {
      return length; // the end of a text whose last line ends with a line break
    }
    throw new HunkError(`A change starts past the end of the document (line ${position.line + 1}).`);
  }
  const content = line.replace(/(\r\n|\r|\n)$/, "").length;
  if (position.character > content) {
    throw new HunkError(`A change points past the end of line ${position.line + 1}.`);
  }
  return (starts[position.line] as number) + position.character;
}

/**
 * The edits the hunks make to `text`, in order. Throws HunkError when a hunk is out of order,
 * points outside the text, or its `oldText` is not the text its range holds.
 */
export function hunksToEdits(text: string, hunks: readonly ProposedHunk[]): OffsetEdit[] {
  const lines = splitLines(text);
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length;
  }
  const edits: OffsetEdit[] = [];
  let floor = 0;
  for (const hunk of hunks) {
    const start = offsetOf(hunk.range.start, lines, starts, text.length);
    const end = offsetOf(hunk.range.end, lines, starts, text.length);
    if (start < floor || end < start) {
      throw new HunkError(`The change at line ${hunk.range.start.line + 1} is out of order.`);
    }
    if (hunk.oldText !== undefined && text.slice(start, end) !== hunk.oldText) {
      throw new HunkError(`The document no longer matches the change at line ${hunk.range.start.line + 1}.`);
    }
    edits.push({ start, end, newText: hunk.newText });
    floor = end;
  }
  return edits;
}

/** Applies offset edits (in increasing, non-overlapping order) to `text`. */
export function applyEdits(text: string, edits: readonly OffsetEdit[]): string {
  let out = "";
  let cursor = 0;
  for (const edit of edits) {
    out += text.slice(cursor, edit.start) + edit.newText;
    cursor = edit.end;
  }
  return out + text.slice(cursor);
}

/** `text` with the hunks applied (throws HunkError as `hunksToEdits` does). */
export function applyHunks(text: string, hunks: readonly ProposedHunk[]): string {
  return applyEdits(text, hunksToEdits(text, hunks));
}
