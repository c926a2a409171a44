/** "Complex Edit: Preview…": the dry run's change in VS Code's diff view, with Apply / Discard. */

import * as vscode from "vscode";
import { DiffError, type OffsetEdit, applyEdits, diffToEdits } from "./core/diff";
import type { EditResult } from "./core/protocol";
import { counts } from "./core/render";

export const PREVIEW_SCHEME = "complex-edit-preview";
const CONTEXT_KEY = "complexEdit.previewOpen";

interface Preview {
  document: vscode.TextDocument;
  version: number;
  edits: OffsetEdit[];
  proposed: string;
  instruction: string;
}

export class PreviewManager implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly previews = new Map<string, Preview>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private counter = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.previews.get(uri.toString())?.proposed ?? "";
  }

  async open(document: vscode.TextDocument, version: number, instruction: string, result: EditResult): Promise<void> {
    const summary = result.message ?? "Done.";
    if ((result.diff ?? "") === "") {
      void vscode.window.showInformationMessage(`Complex Edit (preview): ${summary} — no change proposed.`);
      return;
    }
    if (document.version !== version) {
      void vscode.window.showWarningMessage("Complex Edit: the document changed while the preview was computed; run Preview again.");
      return;
    }
    let edits: OffsetEdit[];
    const text = document.getText();
    try {
      edits = diffToEdits(text, result.diff ?? "");
    } catch (error) {
      const why = error instanceof DiffError ? error.message : String(error);
      void vscode.window.showErrorMessage(`Complex Edit: cannot show the preview: ${why}`);
      return;
    }
    const name = document.uri.path.split("/").pop() ?? "document";
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${name}`, query: `id=${++this.counter}` });
    this.previews.set(uri.toString(), { document, version, edits, proposed: applyEdits(text, edits), instruction });
    await vscode.commands.executeCommand("setContext", CONTEXT_KEY, true);
    await vscode.commands.executeCommand("vscode.diff", document.uri, uri, `${name} ↔ Complex Edit proposal`, {
      preview: true,
    });
    const detail = counts(result);
    const choice = await vscode.window.showInformationMessage(
      `Complex Edit proposal: ${summary}${detail === "" ? "" : ` (${detail})`}`,
      "Apply",
      "Discard",
    );
    if (choice === "Apply") {
      await this.apply(uri);
    } else if (choice === "Discard") {
      await this.discard(uri);
    }
  }

  /** The preview a command is about: its argument, the active diff editor, else the latest. */
  private target(uri: vscode.Uri | undefined): vscode.Uri | undefined {
    if (uri instanceof vscode.Uri && this.previews.has(uri.toString())) {
      return uri;
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    if (active !== undefined && this.previews.has(active.toString())) {
      return active;
    }
    const keys = [...this.previews.keys()];
    const last = keys[keys.length - 1];
    return last === undefined ? undefined : vscode.Uri.parse(last);
  }

  async apply(uri?: vscode.Uri): Promise<void> {
    const target = this.target(uri);
    const preview = target === undefined ? undefined : this.previews.get(target.toString());
    if (target === undefined || preview === undefined) {
      void vscode.window.showWarningMessage("Complex Edit: there is no proposal to apply.");
      return;
    }
    const { document } = preview;
    if (document.isClosed || document.version !== preview.version) {
      void vscode.window.showWarningMessage(
        "Complex Edit: the document changed since the preview; nothing was applied. Run Preview again.",
      );
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const change of preview.edits) {
      edit.replace(document.uri, new vscode.Range(document.positionAt(change.start), document.positionAt(change.end)), change.newText);
    }
    const applied = await vscode.workspace.applyEdit(edit, { isRefactoring: false });
    await this.close(target);
    if (applied) {
      void vscode.window.showInformationMessage("Complex Edit: the proposal was applied.");
    } else {
      void vscode.window.showErrorMessage("Complex Edit: VS Code did not apply the proposal.");
    }
  }

  async discard(uri?: vscode.Uri): Promise<void> {
    const target = this.target(uri);
    if (target !== undefined) {
      await this.close(target);
    }
  }

  private async close(uri: vscode.Uri): Promise<void> {
    this.previews.delete(uri.toString());
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === uri.toString());
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs);
    }
    await vscode.commands.executeCommand("setContext", CONTEXT_KEY, this.previews.size > 0);
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.previews.clear();
  }
}

export const DIFF_SCHEME = "complex-edit-diff";

/** Read-only documents holding an edit's unified diff ("Show Diff"); nothing to save on close. */
export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly diffs = new Map<string, string>();
  private counter = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.diffs.get(uri.toString()) ?? "";
  }

  async show(diff: string, name: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${name}.diff`, query: `id=${++this.counter}` });
    this.diffs.set(uri.toString(), diff);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, "diff");
    await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  dispose(): void {
    this.registration.dispose();
    this.diffs.clear();
  }
}
