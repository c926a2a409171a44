/**
 * "Complex Edit: Show Live Diff": VS Code's diff editor on two read-only virtual documents that
 * follow a running edit's previews (see core/liveDiff): the text the change is being made on,
 * and that text with the change so far, one diff per document, so a multi-line or multi-file
 * change can be watched whole. Only shown: nothing is written to the document.
 */

import * as vscode from "vscode";
import { LiveDiffs } from "./core/liveDiff";
import { livePreviewEnabled } from "./livePreview";

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

  constructor() {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(LIVE_DIFF_SCHEME, this),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (document.uri.scheme !== LIVE_DIFF_SCHEME && !this.isShown(keyOf(document.uri))) {
          this.diffs.closed(keyOf(document.uri));
        }
      }),
    ];
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
  }

  ended(): void {
    this.diffs.ended();
  }

  /** A `complexEdit/preview` notification. */
  receive(params: unknown): void {
    const key = this.diffs.receive(params, (wanted) => {
      const document = vscode.workspace.textDocuments.find((doc) => keyOf(doc.uri) === wanted);
      return document === undefined ? undefined : { version: document.version, text: document.getText() };
    });
    if (key !== undefined) {
      this.refresh(key);
    }
  }

  private refresh(key: string): void {
    this.changed.fire(this.uriOf(key, "before"));
    this.changed.fire(this.uriOf(key, "after"));
  }

  private isShown(key: string): boolean {
    return vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .some((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === this.uriOf(key, "after").toString());
  }

  /**
   * Opens the live diff of the active editor's document, or, when it has none, of the document
   * the user picks among those that have one.
   */
  async show(): Promise<void> {
    const keys = this.diffs.keys();
    const active = vscode.window.activeTextEditor?.document.uri;
    let key = active !== undefined && keys.includes(keyOf(active)) ? keyOf(active) : undefined;
    if (key === undefined && keys.length === 1) {
      key = keys[0];
    } else if (key === undefined && keys.length > 1) {
      const picked = await vscode.window.showQuickPick(
        keys.map((k) => ({ label: nameOf(k), description: vscode.workspace.asRelativePath(vscode.Uri.parse(k)), key: k })),
        { title: "Complex Edit: Show Live Diff", placeHolder: "The live diff of which document?" },
      );
      key = picked?.key;
      if (key === undefined) {
        return;
      }
    }
    if (key === undefined) {
      void vscode.window.showInformationMessage(
        livePreviewEnabled()
          ? "Complex Edit: no edit has run here yet; run one, and Show Live Diff follows it as it is made."
          : "Complex Edit: the live diff follows the live preview, which complexEdit.livePreview turns off.",
      );
      return;
    }
    await vscode.commands.executeCommand("vscode.diff", this.uriOf(key, "before"), this.uriOf(key, "after"), `${nameOf(key)}: Complex Edit live diff`, {
      preview: true,
      preserveFocus: false,
    });
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    this.changed.dispose();
  }
}
