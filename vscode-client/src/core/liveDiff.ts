/**
 * The live diff of a running edit: for each document the server sends previews of
 * (`complexEdit/preview`), the text the preview was computed on and that text with the change so
 * far, kept as the previews come and frozen when they stop, so VS Code's diff editor can show a
 * multi-line or multi-file change whole while it is made. The view itself is `src/liveDiff.ts`.
 */

import { HunkError, applyHunks } from "./hunks";
import { asPreviewParams } from "./livePreview";

/** The two sides of one document's live diff. `done`: no more previews will change them. */
export interface LiveDiffSides {
  before: string;
  after: string;
  done: boolean;
}

/** Where the edit the live diff follows is: none yet, running, or how it ended. */
export type LiveDiffStatus = "idle" | "running" | "done" | "failed" | "cancelled";

/** What a notification changed: a document's sides, or nothing until `key`'s text on disk is read. */
export type LiveDiffChange = { kind: "changed"; key: string } | { kind: "needsDisk"; key: string } | { kind: "none" };

const NONE: LiveDiffChange = { kind: "none" };

/**
 * The live diff of the edits of this client: every document an edit (across files) changes, in
 * the order it started changing (the command's own document first), each with the text the
 * change is made on and that text with the change so far. An open document's preview is read
 * against the document at its version; a file not open (`version: null`) against its text on
 * disk, which the view reads once (`needsDisk`, then `diskText`). A new edit starts it over once
 * no other runs; when the last one ends, it says how (`status`) and keeps the last state.
 */
export class LiveDiffs {
  private documents = new Map<string, LiveDiffSides>();
  private disk = new Map<string, string>();
  /** The latest notification of each file not open, waiting for its text on disk. */
  private waiting = new Map<string, unknown>();
  private running = 0;
  private state: LiveDiffStatus = "idle";

  /** `keyOf` turns the URI a notification names into the one `started` was given for that document. */
  constructor(private readonly keyOf: (uri: string) => string = (uri) => uri) {}

  /** An edit of the document `key`, whose text is `text` now, was sent: its diff starts empty. */
  started(key: string, text: string): void {
    if (this.running === 0) {
      this.documents = new Map();
      this.disk = new Map();
      this.waiting = new Map();
    }
    this.running++;
    this.state = "running";
    this.documents.set(key, { before: text, after: text, done: false });
  }

  /** An edit ended, `outcome` saying how; once none runs, the diff is final. */
  ended(outcome: Exclude<LiveDiffStatus, "idle" | "running"> = "done"): void {
    this.running = Math.max(this.running - 1, 0);
    if (this.running === 0) {
      this.state = outcome;
      this.waiting.clear();
      for (const sides of this.documents.values()) {
        sides.done = true;
      }
    }
  }

  status(): LiveDiffStatus {
    return this.state;
  }

  /**
   * A notification. `textAt(key)` is the open document's version and text now (undefined: not
   * open). A preview counts while any edit of this client runs, on an open document only at the
   * version it was computed for, on a file not open (`version: null`) on its text on disk.
   */
  receive(value: unknown, textAt: (key: string) => { version: number; text: string } | undefined): LiveDiffChange {
    const params = asPreviewParams(value);
    if (params === undefined) {
      return NONE;
    }
    const key = this.keyOf(params.uri);
    const shown = this.documents.get(key);
    if (params.done) {
      if (shown === undefined || shown.done) {
        return NONE;
      }
      shown.done = true;
      return { kind: "changed", key };
    }
    if (this.running === 0) {
      return NONE;
    }
    let before: string;
    if (params.version === undefined) {
      const disk = this.disk.get(key);
      if (disk === undefined) {
        this.waiting.set(key, value);
        return { kind: "needsDisk", key };
      }
      before = disk;
    } else {
      const now = textAt(key);
      if (now === undefined || params.version !== now.version) {
        return NONE; // computed for another version: a newer preview follows
      }
      before = now.text;
    }
    let after: string;
    try {
      after = applyHunks(before, params.hunks);
    } catch (error) {
      if (error instanceof HunkError) {
        return NONE;
      }
      throw error;
    }
    this.documents.set(key, { before, after, done: false });
    return { kind: "changed", key };
  }

  /** The text on disk of `key` (a file not open), read for the previews waiting for it. */
  diskText(key: string, text: string): LiveDiffChange {
    if (!this.disk.has(key)) {
      this.disk.set(key, text);
    }
    const waiting = this.waiting.get(key);
    this.waiting.delete(key);
    return waiting === undefined ? NONE : this.receive(waiting, () => undefined);
  }

  sides(key: string): LiveDiffSides | undefined {
    return this.documents.get(key);
  }

  /** The documents that have a live diff, in the order they got one. */
  keys(): string[] {
    return [...this.documents.keys()];
  }

  isRunning(): boolean {
    return this.running > 0;
  }

  /** The view's title: whether the edit runs or how it ended (VS Code adds "(N files)"). */
  title(): string {
    const status = { idle: "no edit yet", running: "running…", done: "done", failed: "failed", cancelled: "cancelled" }[this.state];
    return `Complex Edit live diff: ${status}`;
  }
}
