/**
 * "Complex Edit: Revert an Edit…": a quick pick of the server's history (`complexEdit.history`),
 * the revert's diff shown before anything lands (a dry run of `complexEdit.revert`), then the
 * revert itself, which the server lands as one workspace edit (every file, unsaved ones included;
 * one undo step). A conflict offers to revert the other files only (`force`).
 */

import * as vscode from "vscode";
import { ExecuteCommandRequest } from "vscode-languageclient/node";
import { type CommandContext, failureNotice, showNotice } from "./commands";
import type { EditResult } from "./core/protocol";
import { renderResult } from "./core/render";

export const REVERT_COMMAND = "complexEdit.revertEdit";

/** One entry of `complexEdit.history`. */
interface HistoryEntry {
  id: string;
  time: string;
  instruction: string;
  files: string[];
  added: number;
  removed: number;
}

function isEntry(value: unknown): value is HistoryEntry {
  const entry = value as Partial<HistoryEntry> | null;
  return typeof entry?.id === "string" && typeof entry.instruction === "string" && Array.isArray(entry.files);
}

async function execute(ctx: CommandContext, command: string, args: Record<string, unknown>): Promise<unknown> {
  const client = await ctx.server.ensureStarted();
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
}

async function revert(ctx: CommandContext, args: Record<string, unknown>): Promise<EditResult> {
  return (await execute(ctx, "complexEdit.revert", args)) as EditResult;
}

/** The edit to take back, picked from the history; undefined when none is picked. */
async function pickEdit(ctx: CommandContext): Promise<HistoryEntry | undefined> {
  const listed = await execute(ctx, "complexEdit.history", { limit: 100 });
  const entries = Array.isArray(listed) ? listed.filter(isEntry) : [];
  if (entries.length === 0) {
    void vscode.window.showInformationMessage("Complex Edit: no edit is recorded for this workspace.");
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    entries.map((entry) => ({
      label: entry.instruction.replace(/\s+/g, " "),
      description: `${entry.files.join(", ")}  +${entry.added} −${entry.removed}`,
      detail: `${entry.time} · ${entry.id}`,
      entry,
    })),
    { title: "Complex Edit: Revert an Edit", placeHolder: "Which edit to take back? (newest first)", matchOnDescription: true },
  );
  return picked?.entry;
}

/** Shows the revert's diff beside the editor, read-only and unsaved. */
async function showDiff(result: EditResult): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ content: result.diff ?? "", language: "diff" });
  await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

export async function revertEdit(ctx: CommandContext): Promise<void> {
  try {
    const entry = await pickEdit(ctx);
    if (entry === undefined) {
      return;
    }
    let force = false;
    let planned = await revert(ctx, { id: entry.id, dryRun: true });
    if (!planned.success && planned.reason === "conflict") {
      const choice = await vscode.window.showWarningMessage(
        `Complex Edit: ${planned.error ?? "a file changed again where the edit applies."}`,
        { modal: true },
        "Revert Other Files",
      );
      if (choice === undefined) {
        return;
      }
      force = true;
      planned = await revert(ctx, { id: entry.id, dryRun: true, force });
    }
    if (!planned.success || (planned.diff ?? "") === "") {
      await showNotice(renderResult(planned), ctx);
      return;
    }
    await showDiff(planned);
    const go = await vscode.window.showInformationMessage(
      `Complex Edit: take back "${entry.instruction}" in ${entry.files.length === 1 ? "1 file" : `${entry.files.length} files`}? The diff is beside.`,
      { modal: true },
      "Revert",
    );
    if (go !== "Revert") {
      return;
    }
    await showNotice(renderResult(await revert(ctx, { id: entry.id, force })), ctx);
  } catch (error) {
    await showNotice(failureNotice(error), ctx);
  }
}
