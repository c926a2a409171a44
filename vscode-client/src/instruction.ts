/**
 * The instruction box: a quick input where Enter runs what was typed; recent instructions are
 * listed below, and picking one puts it in the box to edit before it runs.
 */

import * as vscode from "vscode";
import { acceptInstruction, instructionItems, readHistory, remember } from "./core/history";

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
      const accept = acceptInstruction(pick.value, pick.selectedItems[0] ?? pick.activeItems[0]);
      if (accept.kind === "fill") {
        pick.value = accept.instruction; // recalled, to edit; the next Enter runs it
        refresh();
      } else if (accept.kind === "run") {
        void history.add(accept.instruction);
        finish(accept.instruction);
      }
    });
    pick.onDidHide(() => finish(undefined));
    pick.show();
  });
}
