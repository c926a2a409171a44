/**
 * The live preview of a running edit: the server's `complexEdit/preview` notifications (see the
 * contract's "Live preview"), what each one means for a document, and what to draw for its
 * hunks. The drawing itself (decorations) is `src/livePreview.ts`.
 */

import { asHunks } from "./hunks";
import type { Range } from "./protocol";

export const PREVIEW_NOTIFICATION = "complexEdit/preview";
/** The client capability that asks the server for previews: `experimental.complexEditPreview`. */
export const PREVIEW_CAPABILITY = "complexEditPreview";
/** How much of a new line an inline label shows. */
export const LABEL_CHARS = 80;

export interface PreviewHunk {
  range: Range;
  newText: string;
  oldText?: string;
}

/** One notification: the change so far on the document `uri` at `version`, or its end (`done`). */
export interface PreviewParams {
  uri: string;
  version: number | undefined;
  hunks: PreviewHunk[];
  done: boolean;
}

/** The notification's params, or undefined when they are not well formed (then nothing is drawn). */
export function asPreviewParams(value: unknown): PreviewParams | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const { textDocument, hunks, done } = value as Record<string, unknown>;
  if (typeof textDocument !== "object" || textDocument === null) {
    return undefined;
  }
  const { uri, version } = textDocument as Record<string, unknown>;
  if (typeof uri !== "string") {
    return undefined;
  }
  const list = asHunks(Array.isArray(hunks) ? hunks : []);
  if (list === undefined) {
    return undefined;
  }
  return { uri, version: Number.isInteger(version) ? (version as number) : undefined, hunks: list, done: done === true };
}

/** A hunk in the document: the lines it replaces (`last < first` for a pure insertion before `first`) and the whole lines that replace them. */
export interface HunkShape {
  first: number;
  last: number;
  newLines: string[];
}

/**
 * How `hunk` looks in a document of `lineCount` lines whose line `n` is `lineAt(n)` (no line
 * break). Characters are UTF-16 code units, like a JavaScript string's.
 */
export function layoutHunk(hunk: PreviewHunk, lineAt: (line: number) => string, lineCount: number): HunkShape {
  const { start, end } = hunk.range;
  const text = hunk.newText.replace(/\r\n/g, "\n");
  if (start.line === end.line && start.character === end.character && start.character === 0) {
    const added = text.replace(/\n$/, "");
    return { first: start.line, last: start.line - 1, newLines: text === "" ? [] : added.split("\n") };
  }
  let last = end.line;
  if (end.character === 0 && end.line > start.line) {
    last = end.line - 1;
  }
  last = Math.min(last, lineCount - 1);
  const firstLine = start.line < lineCount ? lineAt(start.line) : "";
  const prefix = firstLine.slice(0, start.character);
  let suffix = "";
  if (last === end.line) {
    suffix = lineAt(last).slice(end.character);
  }
  let whole = prefix + text + suffix;
  if (last < end.line || end.line >= lineCount) {
    whole = whole.replace(/\n$/, "");
  }
  return { first: start.line, last, newLines: whole === "" ? [] : whole.split("\n") };
}

/** What to draw for one hunk. */
export interface PreviewDecoration {
  /** The lines being replaced (inclusive), coloured; none for a pure insertion. */
  changed: { first: number; last: number } | undefined;
  /** The line whose end shows `label`. */
  anchorLine: number;
  /** The new text in short: its first line, and how many more there are. */
  label: string;
  /** The new lines in full (for a hover). */
  newText: string;
}

function shorten(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > LABEL_CHARS ? `${trimmed.slice(0, LABEL_CHARS - 1)}…` : trimmed;
}

function more(count: number): string {
  return count > 1 ? ` (+${count - 1} ${count === 2 ? "line" : "lines"})` : "";
}

/** The decoration of `hunk` in the document; undefined for a hunk that changes nothing visible. */
export function decorationFor(
  hunk: PreviewHunk,
  lineAt: (line: number) => string,
  lineCount: number,
): PreviewDecoration | undefined {
  if (lineCount <= 0) {
    return undefined;
  }
  const shape = layoutHunk(hunk, lineAt, lineCount);
  const lastLine = lineCount - 1;
  const first = Math.min(shape.first, lastLine);
  const newText = shape.newLines.join("\n");
  const [head = ""] = shape.newLines;
  if (shape.last < shape.first) {
    if (shape.newLines.length === 0) {
      return undefined;
    }
    // Inserted before line `first`: shown at the end of the line above it, or on line 0.
    const above = shape.first === 0;
    const label = `+ ${shorten(head)}${more(shape.newLines.length)}${above ? " (above)" : ""}`;
    return { changed: undefined, anchorLine: above ? 0 : Math.min(shape.first - 1, lastLine), label, newText };
  }
  const last = Math.min(Math.max(shape.last, first), lastLine);
  const label =
    shape.newLines.length === 0 ? "→ (removed)" : `→ ${shorten(head)}${more(shape.newLines.length)}`;
  return { changed: { first, last }, anchorLine: last, label, newText };
}

/** The decorations of a preview's hunks, in order. */
export function decorationsFor(
  hunks: readonly PreviewHunk[],
  lineAt: (line: number) => string,
  lineCount: number,
): PreviewDecoration[] {
  return hunks.flatMap((hunk) => decorationFor(hunk, lineAt, lineCount) ?? []);
}

/** What to do for a document: draw its hunks (replacing what it showed), clear it, or nothing. */
export type PreviewAction =
  | { kind: "draw"; uri: string; hunks: PreviewHunk[] }
  | { kind: "clear"; uri: string }
  | { kind: "none" };

const NONE: PreviewAction = { kind: "none" };

/**
 * The previews of the documents, one each: which to draw, and when they go (`done`, the end of
 * the command that produced them, the document closing). A preview is drawn while an edit of
 * this client runs — on its own document and on every other open document an edit across files
 * changes —, and only on the version it was computed for (a file not open, `version: null`, has
 * no editor to draw in).
 */
export class LivePreviews {
  /** The preview each document shows, with the version it was computed for. */
  private readonly shown = new Map<string, { version: number; hunks: PreviewHunk[] }>();
  /** How many edits run on each document. */
  private readonly running = new Map<string, number>();

  /** `keyOf` turns the URI a notification names into the one `started` was given for that document. */
  constructor(private readonly keyOf: (uri: string) => string = (uri) => uri) {}

  /**
   * What a notification means. `versionNow(key)` is the version now of the document (undefined:
   * not open); `enabled` is the user's setting, read at that moment.
   */
  receive(value: unknown, versionNow: (uri: string) => number | undefined, enabled: boolean): PreviewAction {
    const params = asPreviewParams(value);
    if (params === undefined) {
      return NONE;
    }
    const uri = this.keyOf(params.uri);
    if (params.done || !enabled || this.running.size === 0) {
      return this.clear(uri);
    }
    const now = versionNow(uri);
    if (now === undefined || params.version !== now) {
      return NONE; // computed for another version: a newer preview, or the edit itself, follows
    }
    this.shown.set(uri, { version: now, hunks: params.hunks });
    return { kind: "draw", uri, hunks: params.hunks };
  }

  /** An edit of `uri` was sent. */
  started(uri: string): void {
    this.running.set(uri, (this.running.get(uri) ?? 0) + 1);
  }

  /**
   * An edit of `uri` ended (its answer, an error or a cancel): its preview goes once no other
   * edit of it runs, and every other document's once no edit runs at all.
   */
  ended(uri: string): PreviewAction[] {
    const left = (this.running.get(uri) ?? 1) - 1;
    if (left > 0) {
      this.running.set(uri, left);
      return [];
    }
    this.running.delete(uri);
    const others = this.running.size === 0 ? [...this.shown.keys()].filter((key) => key !== uri) : [];
    return [this.clear(uri), ...others.map((key) => this.clear(key))];
  }

  /** The document was closed. */
  closed(uri: string): PreviewAction {
    return this.clear(uri);
  }

  /** The preview to draw again in an editor that (re)appears for `uri` at `version`, if one shows on that version. */
  redraw(uri: string, version: number): PreviewAction {
    const shown = this.shown.get(uri);
    return shown !== undefined && shown.version === version ? { kind: "draw", uri, hunks: shown.hunks } : NONE;
  }

  /** Every preview goes (the server stopped). */
  clearAll(): PreviewAction[] {
    const uris = [...this.shown.keys()];
    this.shown.clear();
    return uris.map((uri) => ({ kind: "clear", uri }));
  }

  private clear(uri: string): PreviewAction {
    this.shown.delete(uri);
    return { kind: "clear", uri };
  }
}
