/** The language-model tool `complexEdit_editFile`: an outer agent hands one file edit to the sub-agent. */

import * as vscode from "vscode";
import { linesToRange } from "./core/arguments";
import { renderToolResult } from "./core/render";
import { type ToolInput, checkLines, resolveToolFile, validateToolInput } from "./core/toolInput";
import { failureNotice } from "./commands";
import type { ComplexEditServer } from "./server";
import { SECTION } from "./settings";

export const TOOL_NAME = "complexEdit_editFile";

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

function folders(): { name: string; path: string }[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ name: folder.name, path: folder.uri.fsPath }));
}

function targetUri(input: ToolInput): vscode.Uri | string {
  const target = resolveToolFile(input.file, folders());
  if (!target.ok) {
    return target.error;
  }
  return target.value.kind === "uri" ? vscode.Uri.parse(target.value.uri) : vscode.Uri.file(target.value.path);
}

function lines(input: ToolInput): string {
  if (input.startLine === undefined) {
    return "";
  }
  const end = input.endLine ?? input.startLine;
  return end === input.startLine ? ` (line ${input.startLine})` : ` (lines ${input.startLine}–${end})`;
}

export class EditFileTool implements vscode.LanguageModelTool<unknown> {
  constructor(private readonly server: ComplexEditServer) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): vscode.PreparedToolInvocation {
    const checked = validateToolInput(options.input);
    if (!checked.ok) {
      return { invocationMessage: "Complex Edit: checking the request" };
    }
    const input = checked.value;
    const uri = targetUri(input);
    const label = typeof uri === "string" ? input.file : vscode.workspace.asRelativePath(uri);
    const message = new vscode.MarkdownString();
    message.appendMarkdown(`**File:** `);
    message.appendText(`${label}${lines(input)}`);
    message.appendMarkdown(`\n\n**Instruction:** `);
    message.appendText(input.instruction);
    if (input.otherFiles === "edit") {
      message.appendMarkdown("\n\n_Other files of the workspace may change too, all in one edit._");
    }
    if (input.dryRun === true) {
      message.appendMarkdown("\n\n_Dry run: the change is computed and returned as a diff, not applied._");
    } else if (vscode.workspace.getConfiguration(SECTION).get<boolean>("review") === true) {
      message.appendMarkdown("\n\n_Review is on: you keep or uncheck each change in the refactor preview before it lands._");
    }
    return {
      invocationMessage: `Complex Edit: ${input.dryRun === true ? "previewing an edit of" : "editing"} ${label}`,
      confirmationMessages: {
        title: input.dryRun === true ? "Preview an edit with Complex Edit?" : "Edit this file with Complex Edit?",
        message,
      },
    };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<unknown>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const checked = validateToolInput(options.input);
    if (!checked.ok) {
      return text(`Invalid input: ${checked.error}`);
    }
    const input = checked.value;
    const uri = targetUri(input);
    if (typeof uri === "string") {
      return text(uri);
    }
    let document: vscode.TextDocument;
    try {
      document = await vscode.workspace.openTextDocument(uri);
    } catch (error) {
      return text(`Cannot open ${input.file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const badLines = checkLines(input, document.lineCount);
    if (badLines !== undefined) {
      return text(badLines);
    }
    const label = vscode.workspace.asRelativePath(document.uri);
    const range = input.startLine !== undefined ? linesToRange(input.startLine, input.endLine) : undefined;
    const wasDirty = document.isDirty;
    try {
      const result = await this.server.perform(
        {
          document: document.uri,
          prompt: input.instruction,
          selection: range,
          dryRun: input.dryRun === true,
          otherFiles: input.otherFiles,
        },
        token,
      );
      let saved = false;
      // Save only what was clean before: unsaved work of the user's is left for them to save.
      if (result.success && result.applied === true && !wasDirty && document.uri.scheme === "file") {
        saved = await document.save();
      }
      return text(renderToolResult(result, label, { dryRun: input.dryRun === true, saved }));
    } catch (error) {
      const notice = failureNotice(error);
      return text(notice.text);
    }
  }
}

export function registerTool(server: ComplexEditServer): vscode.Disposable {
  if (typeof vscode.lm?.registerTool !== "function") {
    return new vscode.Disposable(() => undefined);
  }
  return vscode.lm.registerTool(TOOL_NAME, new EditFileTool(server));
}
