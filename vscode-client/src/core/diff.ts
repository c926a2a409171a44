/**
 * Reads the server's unified diff back into edits of the document it was made from, so a dry
 * run can be shown in VS Code's diff view and applied without asking the model again.
 *
 * The server's diff keeps each line's own terminator (`\n`, `\r\n` or `\r`) and marks a last
 * line without one with `\ No newline at end of file`, so the document is rebuilt byte for byte.
 */

export interface Hunk {
  /** 0-based index of the first old line the hunk covers. */
  oldIndex: number;
  oldCount: number;
  /** 0-based index of the first new line the hunk covers. */
  newIndex: number;
  newCount: number;
  lines: { kind: " " | "-" | "+"; text: string }[];
}

/** Replace `text.slice(start, end)` with `newText` (offsets into the original text). */
export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

export class DiffError extends Error {}

const HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

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

function stripTerminator(line: string): string {
  return line.replace(/(\r\n|\r|\n)$/, "");
}

export function parseUnifiedDiff(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  for (const line of splitLines(diff)) {
    const header = HEADER.exec(line);
    if (header !== null) {
      const oldStart = Number(header[1]);
      const oldCount = header[2] === undefined ? 1 : Number(header[2]);
      const newStart = Number(header[3]);
      const newCount = header[4] === undefined ? 1 : Number(header[4]);
      current = {
        oldIndex: oldCount === 0 ? oldStart : oldStart - 1,
        oldCount,
        newIndex: newCount === 0 ? newStart : newStart - 1,
        newCount,
        lines: [],
      };
      hunks.push(current);
      continue;
    }
    if (current === undefined) {
      continue; // the ---/+++ file header
    }
    const marker = line[0];
    if (marker === " " || marker === "-" || marker === "+") {
      current.lines.push({ kind: marker, text: line.slice(1) });
    } else if (marker === "\\") {
      const last = current.lines[current.lines.length - 1];
      if (last === undefined) {
        throw new DiffError("'\\ No newline at end of file' before any line of its hunk.");
      }
      last.text = stripTerminator(last.text);
    } else if (stripTerminator(line) === "") {
      current.lines.push({ kind: " ", text: line }); // an empty context line whose space was lost
    } else {
      throw new DiffError(`Unexpected line in the diff: ${JSON.stringify(line.slice(0, 40))}`);
    }
  }
  for (const hunk of hunks) {
    const olds = hunk.lines.filter((l) => l.kind !== "+").length;
    const news = hunk.lines.filter((l) => l.kind !== "-").length;
    if (olds !== hunk.oldCount || news !== hunk.newCount) {
      throw new DiffError(
        `A hunk announces -${hunk.oldCount} +${hunk.newCount} lines but holds -${olds} +${news}.`,
      );
    }
  }
  return hunks;
}

/**
 * The edits that turn `text` into the diff's new side, one per run of changed lines. Throws
 * DiffError when the diff's old side does not match `text`.
 */
export function diffToEdits(text: string, diff: string): OffsetEdit[] {
  const lines = splitLines(text);
  const offsets: number[] = [0];
  for (const line of lines) {
    offsets.push((offsets[offsets.length - 1] as number) + line.length);
  }
  const edits: OffsetEdit[] = [];
  let floor = 0;
  for (const hunk of parseUnifiedDiff(diff)) {
    if (hunk.oldIndex < floor || hunk.oldIndex > lines.length) {
      throw new DiffError(`A hunk starts at line ${hunk.oldIndex + 1}, out of order or past the end.`);
    }
    let index = hunk.oldIndex;
    let pending: OffsetEdit | undefined;
    const flush = (): void => {
      if (pending !== undefined) {
        edits.push(pending);
        pending = undefined;
      }
    };
    for (const entry of hunk.lines) {
      if (entry.kind === "+") {
        pending ??= { start: offsets[index] as number, end: offsets[index] as number, newText: "" };
        pending.newText += entry.text;
        continue;
      }
      if (lines[index] !== entry.text) {
        throw new DiffError(`The document no longer matches the diff at line ${index + 1}.`);
      }
      if (entry.kind === "-") {
        pending ??= { start: offsets[index] as number, end: offsets[index] as number, newText: "" };
        pending.end = offsets[index + 1] as number;
      } else {
        flush();
      }
      index++;
    }
    flush();
    floor = index;
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
