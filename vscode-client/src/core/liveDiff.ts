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

export class LiveDiffs {
  private readonly documents = new Map<string, LiveDiffSides>();
  private running = 0;

  /** `keyOf` turns the URI a notification names into the one `started` was given for that document. */
  constructor(private readonly keyOf: (uri: string) => string = (uri) => uri) {}

  /** An edit of the document `key`, whose text is `text` now, was sent: its diff starts empty. */
  started(key: string, text: string): void {
    this.running++;
    this.documents.set(key, { before: text, after: text, done: false });
  }

  /** An edit ended (however). */
  ended(): void {
    this.running = Math.max(this.running - 1, 0);
    if (this.running === 0) {
      for (const sides of this.documents.values()) {
        sides.done = true;
      }
    }
  }

  /**
   * A notification. `textAt(key)` is the open document's version and text now (undefined: not
   * open). Returns the key of the document whose sides changed, or undefined. A preview counts
   * while any edit of this client runs (an edit across files previews every open document it
   * changes), and only on the version it was computed for.
   */
  receive(value: unknown, textAt: (key: string) => { version: number; text: string } | undefined): string | undefined {
    const params = asPreviewParams(value);
    if (params === undefined) {
      return undefined;
    }
    const key = this.keyOf(params.uri);
    const shown = this.documents.get(key);
    if (params.done) {
      if (shown === undefined || shown.done) {
        return undefined;
      }
      shown.done = true;
      return key;
    }
    if (this.running === 0) {
      return undefined;
    }
    const now = textAt(key);
    if (now === undefined || params.version !== now.version) {
      return undefined; // computed for another version: a newer preview follows
    }
    let after: string;
    try {
      after = applyHunks(now.text, params.hunks);
    } catch (error) {
      if (error instanceof HunkError) {
        return undefined;
      }
      throw error;
    }
    this.documents.set(key, { before: now.text, after, done: false });
    return key;
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

  /** The document was closed: its diff goes. */
  closed(key: string): boolean {
    return this.documents.delete(key);
  }
}
