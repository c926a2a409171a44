/** Activates the extension: the server, the commands, the preview and the language-model tool. */

import * as vscode from "vscode";
import {
  type CommandContext,
  clearApiKey,
  editAcrossFiles,
  editWithInstruction,
  editWithReview,
  failureNotice,
  openFile,
  previewEdit,
  restartServer,
  setApiKey,
  showServerReport,
} from "./commands";
import { OPEN_FILE_COMMAND } from "./core/documents";
import { LaunchError } from "./core/launch";
import { InstructionHistory } from "./instruction";
import { APPLY_COMMAND, DISCARD_COMMAND, DiffDocuments, PreviewManager, type ProposalRef } from "./preview";
import { ComplexEditServer } from "./server";
import { registerTool } from "./tools";

let server: ComplexEditServer | undefined;

/** The editor title passes the diff's URI; a toast link passes the proposal's id. */
function proposalRef(arg: unknown): ProposalRef {
  return arg instanceof vscode.Uri || typeof arg === "string" ? arg : undefined;
}

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("Complex Edit");
  const traceOutput = vscode.window.createOutputChannel("Complex Edit Trace");
  server = new ComplexEditServer(context.secrets, output, traceOutput, context.extensionPath);
  const preview = new PreviewManager(
    (proposalId, keep) => {
      if (server === undefined) {
        throw new Error("the server is not running");
      }
      return server.applyReview(proposalId, keep);
    },
    (line) => output.appendLine(line),
  );
  const diffs = new DiffDocuments();
  const ctx: CommandContext = {
    server,
    history: new InstructionHistory(context.globalState),
    secrets: context.secrets,
    preview,
    diffs,
  };
  const command = (id: string, run: (...args: unknown[]) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(id, run);
  context.subscriptions.push(
    output,
    traceOutput,
    server,
    preview,
    diffs,
    command("complexEdit.editWithInstruction", () => editWithInstruction(ctx)),
    command("complexEdit.editWithReview", () => editWithReview(ctx)),
    command("complexEdit.editAcrossFiles", () => editAcrossFiles(ctx)),
    command("complexEdit.showLiveDiff", () => server?.liveDiff.show()),
    command(OPEN_FILE_COMMAND, (uri) => openFile(uri)),
    command("complexEdit.preview", () => previewEdit(ctx)),
    command(APPLY_COMMAND, (ref) => preview.apply(proposalRef(ref))),
    command(DISCARD_COMMAND, (ref) => preview.discard(proposalRef(ref))),
    command("complexEdit.setApiKey", () => setApiKey(ctx)),
    command("complexEdit.clearApiKey", () => clearApiKey(ctx)),
    command("complexEdit.restartServer", () => restartServer(ctx)),
    command("complexEdit.showLog", () => output.show(true)),
    command("complexEdit.showServerReport", () =>
      showServerReport(ctx, (context.extension.packageJSON as { version?: string }).version ?? "unknown"),
    ),
    registerTool(server),
  );
  // Start now so documents already open reach the server; a missing server is reported
  // when a command needs it, not on every window start.
  server.ensureStarted().catch((error: unknown) => {
    const notice = failureNotice(error);
    output.appendLine(`[client] the server did not start: ${error instanceof LaunchError ? error.message : notice.text}`);
  });
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
