/**
 * "Complex Edit: Revert an Edit…": a quick pick of the server's history (`complexEdit.history`),
 * then the revert (`complexEdit.revert` with `review: true`), which the server sends as one
 * workspace edit whose every change needs confirmation: VS Code shows it in the refactor preview
 * before anything lands (every file, unsaved ones included; one undo step). A conflict offers to
 * revert the other files only (`force`).
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

export async function revertEdit(ctx: CommandContext): Promise<void> {
  try {
    const entry = await pickEdit(ctx);
    if (entry === undefined) {
      return;
    }
    // review: every change of the revert waits in the refactor preview for the user's OK
    let result = await revert(ctx, { id: entry.id, review: true });
    if (!result.success && result.reason === "conflict") {
      const choice = await vscode.window.showWarningMessage(
        `Complex Edit: ${result.error ?? "a file changed again where the edit applies."}`,
        { modal: true },
        "Revert Other Files",
      );
      if (choice === undefined) {
        return;
      }
      result = await revert(ctx, { id: entry.id, review: true, force: true });
    }
    await showNotice(renderResult(result), ctx);
  } catch (error) {
    await showNotice(failureNotice(error), ctx);
  }
}
