/** The instruction history behind the input box: most recent first, no duplicates, bounded. */

export const HISTORY_LIMIT = 30;

export function remember(history: readonly string[], instruction: string, limit = HISTORY_LIMIT): string[] {
  if (instruction.trim() === "") {
    return [...history];
  }
  return [instruction, ...history.filter((item) => item !== instruction)].slice(0, limit);
}

/** Reads a stored history defensively (the stored value may come from an older version). */
export function readHistory(stored: unknown): string[] {
  if (!Array.isArray(stored)) {
    return [];
  }
  return stored.filter((item): item is string => typeof item === "string" && item.trim() !== "");
}

export interface InstructionItem {
  label: string;
  description?: string;
  /** True for the entry that stands for what the user typed. */
  typed: boolean;
}

/**
 * The entries of the instruction box: what the user typed first (Enter runs it), then the
 * history entries other than that text.
 */
export function instructionItems(value: string, history: readonly string[]): InstructionItem[] {
  const past = history
    .filter((item) => item !== value)
    .map((item): InstructionItem => ({ label: item, description: "recent · ↵ to edit, then ↵ to run", typed: false }));
  if (value.trim() === "") {
    return past;
  }
  return [{ label: value, description: "↵ run this instruction", typed: true }, ...past];
}

/** What Enter does in the instruction box. */
export type Accept =
  | { kind: "run"; instruction: string }
  | { kind: "fill"; instruction: string }
  | { kind: "stay" };

/**
 * Enter on the typed entry runs the box's text; Enter on a recent instruction only puts it in
 * the box, to edit before it runs; Enter on an empty box with nothing picked does nothing.
 */
export function acceptInstruction(value: string, chosen: InstructionItem | undefined): Accept {
  if (chosen !== undefined && !chosen.typed) {
    return { kind: "fill", instruction: chosen.label };
  }
  // The typed entry stands for the box's current text (its label may lag behind the value).
  return value.trim() === "" ? { kind: "stay" } : { kind: "run", instruction: value };
}
