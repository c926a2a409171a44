/**
 * "Complex Edit: Preview…": the server's proposal (`propose`) in VS Code's diff view, with
 * Apply / Discard. Apply lands it through `complexEdit.applyReview` (the server rebases it and
 * sends the edit, like any edit); any other end drops it on the server (`keep: []`).
 *
 * One proposal, one state (core/proposals): it is open until it is applied, discarded, its diff
 * tab is closed or its document changes; then its toast, its diff tab (with the title buttons)
 * and the palette entries all go away.
 */

import * as vscode from "vscode";
import { HunkError, type OffsetEdit, applyEdits, asHunks, hunksFor, hunksToEdits } from "./core/hunks";
import { type ProposalEnd, Proposals, proposalEndLine, proposalText } from "./core/proposals";
import type { EditResult } from "./core/protocol";
import { counts } from "./core/render";

export const PREVIEW_SCHEME = "complex-edit-preview";
const CONTEXT_KEY = "complexEdit.previewOpen";
export const APPLY_COMMAND = "complexEdit.applyPreview";
export const DISCARD_COMMAND = "complexEdit.discardPreview";

/** Lands the hunks `keep` of the server's proposal `proposalId` (`complexEdit.applyReview`). */
export type LandProposal = (proposalId: string, keep: readonly number[]) => Promise<EditResult>;

interface Preview {
  document: vscode.TextDocument;
  version: number;
  proposalId: string;
  keep: number[];
  edits: OffsetEdit[];
  proposed: string;
  uri: vscode.Uri;
  name: string;
}

/** A proposal named by a command: its id (a toast link), or its diff's URI (the editor title). */
export type ProposalRef = string | vscode.Uri | undefined;

export class PreviewManager implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly proposals = new Proposals<Preview>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private counter = 0;
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly land: LandProposal,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, this),
      vscode.window.tabGroups.onDidChangeTabs((event) => this.tabsClosed(event.closed)),
      vscode.workspace.onDidChangeTextDocument((event) => this.documentChanged(event)),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = this.idOf(uri);
    return (id === undefined ? undefined : this.proposals.get(id)?.proposed) ?? "";
  }

  async open(document: vscode.TextDocument, version: number, result: EditResult): Promise<void> {
    const summary = result.message ?? "Done.";
    if ((result.diff ?? "") === "") {
      void vscode.window.showInformationMessage(`Complex Edit (preview): ${summary} — no change proposed.`);
      return;
    }
    if (document.version !== version) {
      void vscode.window.showWarningMessage("Complex Edit: the document changed while the preview was computed; run Preview again.");
      return;
    }
    const hunks = asHunks(result.hunks);
    const proposalId = result.proposalId;
    if (hunks === undefined || proposalId === undefined) {
      void vscode.window.showErrorMessage(
        "Complex Edit: cannot show the preview: the server's answer has no proposal or no hunks (a complex-edit older than this extension?).",
      );
      return;
    }
    const own = document.uri.toString();
    const same = (a: string, b: string): boolean => vscode.Uri.parse(a).toString() === vscode.Uri.parse(b).toString();
    const mine = hunksFor(hunks, own, true, same);
    if (mine.length < hunks.length) {
      void vscode.window.showWarningMessage(
        `Complex Edit: the proposal also changes ${hunks.length - mine.length === 1 ? "another file" : "other files"}; Preview shows one document, so nothing is shown. Use Edit with Review (or Edit Across Files) instead.`,
      );
      return;
    }
    let edits: OffsetEdit[];
    const text = document.getText();
    try {
      edits = hunksToEdits(text, mine);
    } catch (error) {
      const why = error instanceof HunkError ? error.message : String(error);
      void vscode.window.showErrorMessage(`Complex Edit: cannot show the preview: ${why}`);
      return;
    }
    const name = document.uri.path.split("/").pop() ?? "document";
    const id = String(++this.counter);
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${name}`, query: `id=${id}` });
    const keep = hunks.map((hunk, index) => hunk.id ?? index);
    this.proposals.add(id, { document, version, proposalId, keep, edits, proposed: applyEdits(text, edits), uri, name });
    this.proposals.onEnd(id, (why) => {
      if (why !== "applied") {
        void this.land(proposalId, []).catch(() => undefined); // drop it on the server too
      }
    });
    this.proposals.onEnd(id, (why) => this.ended(uri, name, why));
    await this.updateContext();
    // Not a preview tab: opening another file must not replace (and so discard) the proposal.
    await vscode.commands.executeCommand("vscode.diff", document.uri, uri, `${name} ↔ Complex Edit proposal`, {
      preview: false,
    });
    this.showToast(id, proposalText(summary, counts(result), id, { apply: APPLY_COMMAND, discard: DISCARD_COMMAND }));
  }

  /**
   * The toast offering Apply / Discard. A progress notification is the one kind that stays up
   * while it is needed (a message hides itself after a few seconds) and that the extension can
   * take down: it lasts exactly as long as the proposal.
   */
  private showToast(id: string, text: string): void {
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: text }, (progress) => {
      progress.report({ increment: 100 }); // a full bar: nothing is running, the proposal waits
      return new Promise<void>((resolve) => this.proposals.onEnd(id, () => resolve()));
    });
  }

  async apply(ref?: ProposalRef): Promise<void> {
    const id = this.target(ref);
    // Taking the proposal ends it: a second Apply (from another control) finds nothing.
    const preview = id === undefined ? undefined : this.proposals.end(id, "applied");
    if (preview === undefined) {
      void vscode.window.showWarningMessage("Complex Edit: there is no proposal to apply.");
      return;
    }
    const { document } = preview;
    if (document.isClosed || document.version !== preview.version) {
      void this.land(preview.proposalId, []).catch(() => undefined); // drop it on the server too
      this.log(proposalEndLine(preview.name, "stale"));
      void vscode.window.showWarningMessage(
        "Complex Edit: the document changed since the preview; nothing was applied. Run Preview again.",
      );
      return;
    }
    let landed: EditResult;
    try {
      landed = await this.land(preview.proposalId, preview.keep);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.log(`[client] proposal for ${preview.name}: the server did not apply it (${why})`);
      void vscode.window.showErrorMessage(`Complex Edit: the proposal was not applied: ${why}`);
      return;
    }
    const applied = landed.success && landed.applied === true;
    this.log(applied ? proposalEndLine(preview.name, "applied") : `[client] proposal for ${preview.name}: not applied (${landed.reason ?? "no reason"})`);
    if (applied) {
      void vscode.window.showInformationMessage("Complex Edit: the proposal was applied.");
    } else {
      void vscode.window.showErrorMessage(`Complex Edit: the proposal was not applied: ${landed.error ?? landed.message ?? landed.reason ?? "no reason given"}`);
    }
  }

  discard(ref?: ProposalRef): Promise<void> {
    const id = this.target(ref);
    if (id !== undefined) {
      this.proposals.end(id, "discarded");
    }
    return Promise.resolve();
  }

  /** The proposal a command is about: the one it names, else the active diff's, else the latest. */
  private target(ref: ProposalRef): string | undefined {
    const named = ref instanceof vscode.Uri ? this.idOf(ref) : ref;
    const active = vscode.window.activeTextEditor?.document.uri;
    return this.proposals.target(named, active === undefined ? undefined : this.idOf(active));
  }

  private idOf(uri: vscode.Uri): string | undefined {
    if (uri.scheme !== PREVIEW_SCHEME) {
      return undefined;
    }
    return new URLSearchParams(uri.query).get("id") ?? undefined;
  }

  /** Every control of an ended proposal goes: its diff tab, the context key; its toast listens. */
  private ended(uri: vscode.Uri, name: string, why: ProposalEnd): void {
    if (why !== "applied") {
      this.log(proposalEndLine(name, why)); // apply() logs how the apply went
    }
    if (why === "stale") {
      void vscode.window.showWarningMessage(
        `Complex Edit: ${name} changed, so the proposal no longer applies; it was discarded. Run Preview again.`,
      );
    }
    void this.closeTabs(uri).then(() => this.updateContext());
  }

  private async closeTabs(uri: vscode.Uri): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === uri.toString());
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs);
    }
  }

  private updateContext(): Thenable<unknown> {
    return vscode.commands.executeCommand("setContext", CONTEXT_KEY, this.proposals.size > 0);
  }

  /** Closing a proposal's last diff tab discards it. */
  private tabsClosed(closed: readonly vscode.Tab[]): void {
    const open = new Set(
      vscode.window.tabGroups.all
        .flatMap((group) => group.tabs)
        .map((tab) => (tab.input instanceof vscode.TabInputTextDiff ? this.idOf(tab.input.modified) : undefined)),
    );
    for (const tab of closed) {
      const id = tab.input instanceof vscode.TabInputTextDiff ? this.idOf(tab.input.modified) : undefined;
      if (id !== undefined && !open.has(id)) {
        this.proposals.end(id, "closed");
      }
    }
  }

  /** A proposal is computed against one version of its document: any edit makes it stale. */
  private documentChanged(event: vscode.TextDocumentChangeEvent): void {
    if (event.contentChanges.length === 0) {
      return; // only the dirty state changed (a save)
    }
    const changed = event.document.uri.toString();
    for (const id of this.proposals.ids()) {
      if (this.proposals.get(id)?.document.uri.toString() === changed) {
        this.proposals.end(id, "stale");
      }
    }
  }

  dispose(): void {
    this.proposals.endAll("disposed");
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    this.changed.dispose();
  }
}

export const DIFF_SCHEME = "complex-edit-diff";

/**
 * "Show Diff": VS Code's diff editor with the text before the edit (a read-only virtual
 * document; nothing to save on close) against the file itself.
 */
export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private counter = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  async show(document: vscode.Uri, before: string): Promise<void> {
    const name = document.path.split("/").pop() ?? "document";
    // The file's own name, so the left side gets the same language as the right.
    const uri = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${name}`, query: `id=${++this.counter}` });
    this.texts.set(uri.toString(), before);
    await vscode.commands.executeCommand("vscode.diff", uri, document, `${name}: before Complex Edit ↔ now`, {
      preview: true,
    });
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
