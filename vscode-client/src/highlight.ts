/** Highlights the lines an edit changed for a moment after it lands, like Neovim's yank highlight. */

import * as vscode from "vscode";
import { changedLineRanges } from "./core/landed";
import type { ChangedLines } from "./core/protocol";

export const HIGHLIGHT_MS = 1500;

/** Marks the lines an edit changed (`changed`: the result's regions) in every visible editor of `document`; the marks go after HIGHLIGHT_MS. */
export function flashChangedLines(document: vscode.TextDocument, changed: readonly ChangedLines[]): void {
  const ranges = changedLineRanges(changed, document.lineCount).map(
    (range) => new vscode.Range(range.start, 0, range.end, document.lineAt(range.end).text.length),
  );
  const editors = vscode.window.visibleTextEditors.filter((editor) => editor.document === document);
  if (ranges.length === 0 || editors.length === 0) {
    return;
  }
  const decoration = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("diffEditor.insertedLineBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.addedForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  for (const editor of editors) {
    editor.setDecorations(decoration, ranges);
  }
  setTimeout(() => decoration.dispose(), HIGHLIGHT_MS);
}
