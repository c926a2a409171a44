/** The palette commands: ask the user, run the edit, show the outcome. */

import * as vscode from "vscode";
import { ArgumentError } from "./core/arguments";
import { doctorLines } from "./core/doctorReport";
import { LaunchError } from "./core/launch";
import { documentsOf, otherFilesText, plainText } from "./core/documents";
import { type EditResult, type OtherFiles, changedLinesOf } from "./core/protocol";
import { textBefore } from "./core/landed";
import { type Action, type Notice, renderRequestError, renderResult } from "./core/render";
import { flashChangedLines } from "./highlight";
import { type InstructionHistory, askInstruction } from "./instruction";
import type { DiffDocuments, PreviewManager } from "./preview";
import { API_KEY_SECRET, type ComplexEditServer } from "./server";

export interface CommandContext {
  server: ComplexEditServer;
  history: InstructionHistory;
  secrets: vscode.SecretStorage;
  preview: PreviewManager;
  diffs: DiffDocuments;
}

/** Shows a notice and runs the action the user picks. */
export async function showNotice(notice: Notice, ctx: CommandContext, handlers: Partial<Record<Action, () => unknown>> = {}): Promise<void> {
  const show =
    notice.severity === "error"
      ? vscode.window.showErrorMessage
      : notice.severity === "warning"
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const picked = await show<Action>(notice.text, ...notice.actions);
  if (picked === undefined) {
    return;
  }
  const handler = handlers[picked];
  if (handler !== undefined) {
    await handler();
    return;
  }
  switch (picked) {
    case "Show Log":
      ctx.server.output.show(true);
      break;
    case "Set API Key":
      await vscode.commands.executeCommand("complexEdit.setApiKey");
      break;
    case "Open Settings":
      await vscode.commands.executeCommand("workbench.action.openSettings", "complexEdit");
      break;
    default:
      break;
  }
}

/** The notice for a failure to start the server or to run the request. */
export function failureNotice(error: unknown): Notice {
  if (error instanceof LaunchError) {
    return { severity: "error", text: `Complex Edit: ${error.message}`, actions: ["Open Settings", "Show Log"] };
  }
  if (error instanceof ArgumentError) {
    return { severity: "warning", text: `Complex Edit: ${error.message}`, actions: [] };
  }
  return renderRequestError(error);
}

function activeEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showWarningMessage("Complex Edit: open a file in the editor first.");
  }
  return editor;
}

/** How an edit runs: with review, across files. */
interface EditMode {
  review: boolean;
  otherFiles?: OtherFiles;
}

function sameUri(a: string, b: string): boolean {
  return vscode.Uri.parse(a).toString() === vscode.Uri.parse(b).toString();
}

/** Whether a tab shows the document `uri`. */
function isOpenInTab(uri: string): boolean {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .some((tab) => tab.input instanceof vscode.TabInputText && sameUri(tab.input.uri.toString(), uri));
}

/**
 * The result's notice; after an edit across files, it also names the other files that changed,
 * each that no tab shows as a link that opens it.
 */
function resultNotice(result: EditResult, own: vscode.Uri): Notice {
  const notice = renderResult(result);
  const others = result.success
    ? otherFilesText(documentsOf(result.documents), own.toString(), sameUri, isOpenInTab, (uri) =>
        vscode.workspace.asRelativePath(vscode.Uri.parse(uri)),
      )
    : "";
  // Links in the text: the model's words in it must not make links of their own.
  return others === "" ? notice : { ...notice, text: plainText(notice.text) + others };
}

/** Runs one edit on `editor`'s document with `instruction`; shows the outcome. */
async function runEdit(ctx: CommandContext, editor: vscode.TextEditor, instruction: string, mode: EditMode): Promise<void> {
  const document = editor.document;
  const selection = editor.selection;
  const beforeRun = document.getText();
  let result: EditResult;
  try {
    result = await ctx.server.perform({ document: document.uri, prompt: instruction, selection, ...mode });
  } catch (error) {
    await showNotice(failureNotice(error), ctx);
    return;
  }
  const changed = result.success && result.applied === true ? changedLinesOf(result) : undefined;
  // Read now, while the document is the edit's result: the regions are in its lines. beforeRun
  // is the snapshot the server edited (the request went out after every change of it).
  const before = changed !== undefined ? (textBefore(document.getText(), beforeRun, changed) ?? beforeRun) : beforeRun;
  if (changed !== undefined) {
    flashChangedLines(document, changed);
  }
  await showNotice(resultNotice(result, document.uri), ctx, {
    "Show Diff": () => ctx.diffs.show(document.uri, before),
    "Try Again": () => runEdit(ctx, editor, instruction, mode),
  });
}

function askText(mode: EditMode, where: string): { title: string; placeholder: string } {
  if (mode.otherFiles === "edit") {
    return {
      title: "Complex Edit: Edit Across Files",
      placeholder: `What should change, starting from ${where}? Other files of the workspace may change too; name them if you can. (Enter to run)`,
    };
  }
  return mode.review
    ? {
        title: "Complex Edit: Edit with Review",
        placeholder: `What should change in ${where}? You confirm each change before it lands. (Enter to run)`,
      }
    : { title: "Complex Edit: Edit with Instruction", placeholder: `What should change in ${where}? (Enter to run)` };
}

async function askAndRun(ctx: CommandContext, mode: EditMode): Promise<void> {
  const editor = activeEditor();
  if (editor === undefined) {
    return;
  }
  const { title, placeholder } = askText(mode, editor.selection.isEmpty ? "this file" : "the selection");
  const instruction = await askInstruction(ctx.history, title, placeholder);
  if (instruction === undefined) {
    return;
  }
  await runEdit(ctx, editor, instruction, mode);
}

export function editWithInstruction(ctx: CommandContext): Promise<void> {
  return askAndRun(ctx, { review: false });
}

/** The same edit, but VS Code's refactor preview lists each change to keep or uncheck. */
export function editWithReview(ctx: CommandContext): Promise<void> {
  return askAndRun(ctx, { review: true });
}

/** An edit that may change other files of the workspace as well (`otherFiles: "edit"`). */
export function editAcrossFiles(ctx: CommandContext): Promise<void> {
  return askAndRun(ctx, { review: false, otherFiles: "edit" });
}

/** A result message's link to a changed file: opens it in an editor. */
export async function openFile(uri: unknown): Promise<void> {
  if (typeof uri !== "string") {
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.parse(uri), { preview: false });
}

export async function previewEdit(ctx: CommandContext): Promise<void> {
  const editor = activeEditor();
  if (editor === undefined) {
    return;
  }
  const instruction = await askInstruction(
    ctx.history,
    "Complex Edit: Preview",
    "What should change? Nothing is applied: the whole proposed change opens in a diff view to apply or discard.",
  );
  if (instruction === undefined) {
    return;
  }
  const document = editor.document;
  const version = document.version;
  let result: EditResult;
  try {
    // A proposal the server keeps: Apply lands it through `complexEdit.applyReview`.
    result = await ctx.server.perform({ document: document.uri, prompt: instruction, selection: editor.selection, propose: true });
  } catch (error) {
    await showNotice(failureNotice(error), ctx);
    return;
  }
  if (!result.success) {
    await showNotice(renderResult(result, { dryRun: true }), ctx, {
      "Try Again": () => previewEdit(ctx),
    });
    return;
  }
  await ctx.preview.open(document, version, result);
}

export async function setApiKey(ctx: CommandContext): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: "Complex Edit: Set Gemini API Key",
    prompt: "Stored in VS Code's secret storage and given to the server, where it wins over a key in the environment. Never written to settings or logs.",
    password: true,
    ignoreFocusOut: true,
    placeHolder: "Gemini API key",
    validateInput: (value) => (value.trim() === "" ? "The key is empty." : undefined),
  });
  if (key === undefined) {
    return;
  }
  await ctx.secrets.store(API_KEY_SECRET, key.trim());
  await restartForKey(ctx);
  void vscode.window.showInformationMessage("Complex Edit: the Gemini API key is stored; the server now uses it.");
}

/** A new process is the only way to change the server's environment. */
async function restartForKey(ctx: CommandContext): Promise<void> {
  await ctx.server.keyChanged();
}

export async function clearApiKey(ctx: CommandContext): Promise<void> {
  await ctx.secrets.delete(API_KEY_SECRET);
  await restartForKey(ctx);
  void vscode.window.showInformationMessage(
    "Complex Edit: the stored API key is removed; the server now uses the key in its environment (`complex-edit doctor` shows which).",
  );
}

/** The server's report of what an edit would use, in the output channel. */
export async function showServerReport(ctx: CommandContext, extensionVersion: string): Promise<void> {
  let report: unknown;
  let failure: string | undefined;
  try {
    report = await ctx.server.doctor(vscode.window.activeTextEditor?.document.uri);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  const lines = doctorLines({ extensionVersion, command: ctx.server.launched }, report, failure);
  ctx.server.output.appendLine(`[doctor] ${lines.join("\n[doctor] ")}`);
  ctx.server.output.show(true);
}

export async function restartServer(ctx: CommandContext): Promise<void> {
  try {
    await ctx.server.restart();
    void vscode.window.showInformationMessage("Complex Edit: the server restarted.");
  } catch (error) {
    await showNotice(failureNotice(error), ctx);
  }
}
