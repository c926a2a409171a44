/**
 * "Complex Edit: Show Live Diff": VS Code's multi-file diff editor (`vscode.changes`) on the whole
 * change the running edit is making (see core/liveDiff): for each document it changes, open or
 * not, a read-only virtual document with the text the change is made on and one with the change
 * so far. Each file's diff updates in place as previews arrive; a file that starts changing, and
 * the end of the edit (its title says running…, done, failed or cancelled), open the view again
 * with the new list, in the same place. Only shown: nothing is written to any document.
 */

import * as vscode from "vscode";
import { type LiveDiffChange, LiveDiffs } from "./core/liveDiff";
import { type LiveDiffOutcome, livePreviewEnabled } from "./livePreview";

export const LIVE_DIFF_SCHEME = "complex-edit-live";

type Side = "before" | "after";

/** The key of a document: its URI as VS Code writes it (the server echoes what the client sent). */
function keyOf(uri: string | vscode.Uri): string {
  return typeof uri === "string" ? vscode.Uri.parse(uri).toString() : uri.toString();
}

function nameOf(key: string): string {
  return vscode.Uri.parse(key).path.split("/").pop() || "document";
}

export class LiveDiffView implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly diffs = new LiveDiffs(keyOf);
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[];
  /** The title of the view now open (undefined: Show Live Diff was not run, or its tab closed). */
  private shownTitle: string | undefined;
  /** The documents the open view lists. */
  private shownKeys: string[] = [];
  private reopening: Promise<void> = Promise.resolve();

  constructor() {
    this.disposables = [vscode.workspace.registerTextDocumentContentProvider(LIVE_DIFF_SCHEME, this)];
  }

  /** The URI of one side of `key`'s diff; the file's own name, so both sides get its language. */
  private uriOf(key: string, side: Side): vscode.Uri {
    return vscode.Uri.from({ scheme: LIVE_DIFF_SCHEME, path: `/${nameOf(key)}`, query: new URLSearchParams({ side, doc: key }).toString() });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const query = new URLSearchParams(uri.query);
    const sides = this.diffs.sides(query.get("doc") ?? "");
    if (sides === undefined) {
      return "";
    }
    return query.get("side") === "before" ? sides.before : sides.after;
  }

  /** An edit of `document` was sent. */
  started(document: vscode.Uri): void {
    const key = keyOf(document);
    const text = vscode.workspace.textDocuments.find((doc) => keyOf(doc.uri) === key)?.getText() ?? "";
    this.diffs.started(key, text);
    this.refresh(key);
    this.follow();
  }

  /** An edit ended: `outcome` says how. */
  ended(outcome: LiveDiffOutcome = "done"): void {
    this.diffs.ended(outcome);
    this.follow();
  }

  /** A `complexEdit/preview` notification. */
  receive(params: unknown): void {
    this.handle(
      this.diffs.receive(params, (wanted) => {
        const document = vscode.workspace.textDocuments.find((doc) => keyOf(doc.uri) === wanted);
        return document === undefined ? undefined : { version: document.version, text: document.getText() };
      }),
    );
  }

  private handle(change: LiveDiffChange): void {
    if (change.kind === "needsDisk") {
      void this.readDisk(change.key);
    } else if (change.kind === "changed") {
      this.refresh(change.key);
      this.follow();
    }
  }

  /** A file not open: its text on disk, which its previews are on (read once per edit). */
  private async readDisk(key: string): Promise<void> {
    let text: string;
    try {
      text = new TextDecoder("utf-8").decode(await vscode.workspace.fs.readFile(vscode.Uri.parse(key)));
    } catch {
      return;
    }
    this.handle(this.diffs.diskText(key, text));
  }

  private refresh(key: string): void {
    this.changed.fire(this.uriOf(key, "before"));
    this.changed.fire(this.uriOf(key, "after"));
  }

  /** The tabs titled `title` (VS Code adds " (N files)" to a multi-file diff's label). */
  private tabsTitled(title: string): vscode.Tab[] {
    return vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.label === title || tab.label.startsWith(`${title} (`));
  }

  /** The tab of the open view, if it is still open. */
  private shownTab(): vscode.Tab | undefined {
    return this.shownTitle === undefined ? undefined : this.tabsTitled(this.shownTitle)[0];
  }

  /** The open view lists a new file, or its title a new state: open it again, in place. */
  private follow(): void {
    if (this.shownTitle === undefined) {
      return;
    }
    const keys = this.diffs.keys();
    if (this.diffs.title() === this.shownTitle && keys.join("\n") === this.shownKeys.join("\n")) {
      return;
    }
    this.reopening = this.reopening.then(async () => {
      const tab = this.shownTab();
      if (tab === undefined) {
        this.shownTitle = undefined; // the user closed it
        return;
      }
      await this.replace(tab);
    });
  }

  /** Opens the view with the files and title of now, then closes `old` (the view it replaces). */
  private async replace(old: vscode.Tab | undefined): Promise<void> {
    const keys = this.diffs.keys();
    const title = this.diffs.title();
    this.shownTitle = title;
    this.shownKeys = keys;
    const resources = keys.map((key) => [vscode.Uri.parse(key), this.uriOf(key, "before"), this.uriOf(key, "after")]);
    await vscode.commands.executeCommand("vscode.changes", title, resources);
    const opened = vscode.window.tabGroups.activeTabGroup.activeTab;
    if (old !== undefined && old !== opened && old.label !== opened?.label) {
      await vscode.window.tabGroups.close(old, true);
    }
  }

  /** Opens the live diff of the running (or the last) edit: every file it changes, in one view. */
  async show(): Promise<void> {
    if (this.diffs.keys().length === 0) {
      void vscode.window.showInformationMessage(
        livePreviewEnabled()
          ? "Complex Edit: no edit has run here yet; run one, and Show Live Diff follows it as it is made."
          : "Complex Edit: the live diff follows the live preview, which complexEdit.livePreview turns off.",
      );
      return;
    }
    const old = this.shownTab();
    if (old !== undefined) {
      await vscode.window.tabGroups.close(old, true); // shown again, in front
    }
    await this.replace(undefined);
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    this.changed.dispose();
  }
}
