/** Highlights the lines an edit changed for a moment after it lands, like Neovim's yank highlight. */

import * as vscode from "vscode";
import { changedLineRanges } from "./core/landed";

export const HIGHLIGHT_MS = 1500;

/** Marks the lines `diff` changed in every visible editor of `document`; the marks go after HIGHLIGHT_MS. */
export function flashChangedLines(document: vscode.TextDocument, diff: string): void {
  let ranges: vscode.Range[];
  try {
    ranges = changedLineRanges(diff, document.lineCount).map(
      (range) => new vscode.Range(range.start, 0, range.end, document.lineAt(range.end).text.length),
    );
  } catch {
    return; // a diff this client cannot read: no highlight, nothing else depends on it
  }
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
