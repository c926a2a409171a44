/**
 * Draws the live preview of a running edit (`complexEdit/preview`, see core/livePreview): the
 * lines being changed get a background colour, and the new text shows after them (its first
 * line, with a hover holding all of it). Only decorations: no text changes, nothing enters undo,
 * no cursor moves. `complexEdit.livePreview: false` makes the client not ask for previews.
 */

import * as vscode from "vscode";
import type { BaseLanguageClient, ClientCapabilities, FeatureState, StaticFeature } from "vscode-languageclient";
import {
  LivePreviews,
  PREVIEW_CAPABILITY,
  PREVIEW_NOTIFICATION,
  type PreviewAction,
  type PreviewHunk,
  decorationsFor,
} from "./core/livePreview";
import type { LiveDiffStatus } from "./core/liveDiff";
import type { LiveDiffView } from "./liveDiff";

export type LiveDiffOutcome = Exclude<LiveDiffStatus, "idle" | "running">;
import { SECTION } from "./settings";

export const LIVE_PREVIEW_SETTING = "livePreview";

export function livePreviewEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>(LIVE_PREVIEW_SETTING, true);
}

/** The key of a document in the previews: its URI as VS Code writes it (the server echoes what the client sent). */
function keyOf(uri: string | vscode.Uri): string {
  return typeof uri === "string" ? vscode.Uri.parse(uri).toString() : uri.toString();
}

export class LivePreview implements vscode.Disposable {
  private readonly previews = new LivePreviews(keyOf);
  private readonly changedLines = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("complexEdit.previewChangedBackground"),
    overviewRulerColor: new vscode.ThemeColor("complexEdit.previewChangedBackground"),
    overviewRulerLane: vscode.OverviewRulerLane.Right,
  });
  private readonly newText = vscode.window.createTextEditorDecorationType({
    after: {
      color: new vscode.ThemeColor("complexEdit.previewTextForeground"),
      fontStyle: "italic",
      margin: "0 0 0 2em",
    },
  });
  private readonly subscriptions: vscode.Disposable[];
  private disposed = false;

  /** `liveDiff` follows the same notifications (Show Live Diff). */
  constructor(private readonly liveDiff: LiveDiffView) {
    this.subscriptions = [
      vscode.workspace.onDidCloseTextDocument((document) => this.apply(this.previews.closed(keyOf(document.uri)))),
      // A tab shown again gets a new editor, without decorations.
      vscode.window.onDidChangeVisibleTextEditors((editors) => {
        for (const editor of editors) {
          this.apply(this.previews.redraw(keyOf(editor.document.uri), editor.document.version));
        }
      }),
    ];
  }

  /** A `complexEdit/preview` notification from the server. */
  receive(params: unknown): void {
    const versionNow = (key: string): number | undefined =>
      vscode.workspace.textDocuments.find((document) => keyOf(document.uri) === key)?.version;
    this.apply(this.previews.receive(params, versionNow, livePreviewEnabled()));
    this.liveDiff.receive(params);
  }

  /** An edit of `document` was sent; `ended` must follow, however it ends. */
  started(document: vscode.Uri): void {
    this.previews.started(keyOf(document));
    this.liveDiff.started(document);
  }

  /** The edit of `document` ended: `outcome` says how (the live diff shows it). */
  ended(document: vscode.Uri, outcome: LiveDiffOutcome = "done"): void {
    for (const action of this.previews.ended(keyOf(document))) {
      this.apply(action);
    }
    this.liveDiff.ended(outcome);
  }

  clearAll(): void {
    for (const action of this.previews.clearAll()) {
      this.apply(action);
    }
  }

  private apply(action: PreviewAction): void {
    if (action.kind === "none" || this.disposed) {
      return;
    }
    for (const editor of vscode.window.visibleTextEditors) {
      if (keyOf(editor.document.uri) === action.uri) {
        this.draw(editor, action.kind === "draw" ? action.hunks : []);
      }
    }
  }

  private draw(editor: vscode.TextEditor, hunks: readonly PreviewHunk[]): void {
    const document = editor.document;
    const decorations = decorationsFor(hunks, (line) => document.lineAt(line).text, document.lineCount);
    const changed: vscode.DecorationOptions[] = [];
    const labels: vscode.DecorationOptions[] = [];
    for (const decoration of decorations) {
      const hover = new vscode.MarkdownString().appendText("Complex Edit: the change so far").appendCodeblock(
        decoration.newText,
        document.languageId,
      );
      if (decoration.changed !== undefined) {
        const { first, last } = decoration.changed;
        changed.push({ range: new vscode.Range(first, 0, last, document.lineAt(last).text.length), hoverMessage: hover });
      }
      const end = document.lineAt(decoration.anchorLine).range.end;
      labels.push({
        range: new vscode.Range(end, end),
        hoverMessage: hover,
        renderOptions: { after: { contentText: decoration.label } },
      });
    }
    editor.setDecorations(this.changedLines, changed);
    editor.setDecorations(this.newText, labels);
  }

  dispose(): void {
    this.disposed = true;
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    this.changedLines.dispose();
    this.newText.dispose();
  }
}

/**
 * Opts the client in (the `experimental.complexEditPreview` capability, unless
 * `complexEdit.livePreview` is false when the server starts) and hands the notifications to
 * `preview` while this client runs.
 */
export class LivePreviewFeature implements StaticFeature {
  private subscription: vscode.Disposable | undefined;

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly preview: LivePreview,
  ) {}

  getState(): FeatureState {
    return { kind: "static" };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    if (livePreviewEnabled()) {
      capabilities.experimental = { ...(capabilities.experimental as object | undefined), [PREVIEW_CAPABILITY]: true };
    }
  }

  initialize(): void {
    this.subscription?.dispose();
    this.subscription = this.client.onNotification(PREVIEW_NOTIFICATION, (params: unknown) => this.preview.receive(params));
  }

  clear(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
    this.preview.clearAll();
  }
}
