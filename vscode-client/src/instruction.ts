/** The instruction box: a quick input where Enter runs what was typed, with recent instructions below. */

import * as vscode from "vscode";
import { instructionItems, readHistory, remember } from "./core/history";

const HISTORY_KEY = "complexEdit.instructionHistory";

interface Item extends vscode.QuickPickItem {
  typed: boolean;
}

export class InstructionHistory {
  constructor(private readonly state: vscode.Memento) {}

  get(): string[] {
    return readHistory(this.state.get<unknown>(HISTORY_KEY));
  }

  async add(instruction: string): Promise<void> {
    await this.state.update(HISTORY_KEY, remember(this.get(), instruction));
  }
}

/** Asks for an instruction; undefined when the user escapes. */
export function askInstruction(history: InstructionHistory, title: string, placeholder: string): Promise<string | undefined> {
  const past = history.get();
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = title;
  pick.placeholder = placeholder;
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = false;
  const refresh = (): void => {
    pick.items = instructionItems(pick.value, past).map((item) => ({
      label: item.label,
      description: item.description,
      typed: item.typed,
      alwaysShow: item.typed,
    }));
  };
  refresh();
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: string | undefined): void => {
      if (done) {
        return;
      }
      done = true;
      resolve(value);
      pick.dispose();
    };
    pick.onDidChangeValue(refresh);
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      // The typed entry stands for the box's current text (its label may lag behind the value).
      const value = chosen === undefined || chosen.typed ? pick.value : chosen.label;
      if (value.trim() === "") {
        return; // nothing typed and no recent instruction picked: keep the box open
      }
      void history.add(value);
      finish(value);
    });
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}
