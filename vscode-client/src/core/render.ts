/** Turns the server's answer into what the user (or an outer agent) reads. */

import { type EditResult, INVALID_PARAMS, REASON_REMEDIES, REASON_TEXTS, type Remedy, REQUEST_CANCELLED } from "./protocol";

export type Action = "Show Diff" | "Show Log" | "Set API Key" | "Open Settings" | "Try Again";

export interface Notice {
  severity: "info" | "warning" | "error";
  text: string;
  actions: Action[];
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** "2 turns, 5 tool calls" (nothing when the counts are unknown). */
export function counts(result: EditResult): string {
  const parts: string[] = [];
  if (typeof result.turns === "number") {
    parts.push(plural(result.turns, "turn"));
  }
  if (typeof result.toolCalls === "number") {
    parts.push(plural(result.toolCalls, "tool call"));
  }
  return parts.join(", ");
}

/** The buttons that carry out each remedy the server names for a reason. */
const REMEDY_ACTIONS: Readonly<Record<Remedy, readonly Action[]>> = {
  settings: ["Set API Key", "Open Settings"],
  retry: ["Try Again"],
  wait: ["Try Again"],
};

function remedyOf(reason: string | undefined): Remedy | undefined {
  return reason === undefined ? undefined : (REASON_REMEDIES as Readonly<Record<string, Remedy>>)[reason];
}

export function reasonText(reason: string | undefined): string {
  if (reason === undefined) {
    return "unknown reason";
  }
  return (REASON_TEXTS as Readonly<Record<string, string>>)[reason] ?? reason;
}

function one(text: string | undefined, fallback: string): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat === "" ? fallback : flat;
}

/** True for the answer of a run with review (the server counted declined changes). */
export function isReviewResult(result: EditResult): boolean {
  return typeof result.declined === "number" || Array.isArray(result.hunks);
}

/**
 * What landed after a review, in plain words: the server's own sentence when it gives one
 * ("Applied 2 of 3 changes; you declined 1."), else one built from `applied` and `declined`.
 */
export function reviewText(result: EditResult): string {
  const stated = one(result.message, "");
  if (stated !== "") {
    return stated;
  }
  const declined = result.declined ?? 0;
  if (Array.isArray(result.hunks)) {
    return `${plural(result.hunks.length, "change")} proposed for review; nothing was applied.`;
  }
  if (result.applied === true) {
    return declined === 0 ? "Applied every change." : `Applied the changes you kept; you declined ${declined}.`;
  }
  return declined === 0 ? "Nothing was applied." : `You declined all ${plural(declined, "change")}; nothing was applied.`;
}

/** The notification for a command's answer. */
export function renderResult(result: EditResult, options: { dryRun?: boolean } = {}): Notice {
  const detail = counts(result);
  const suffix = detail === "" ? "" : ` (${detail})`;
  if (result.success) {
    const summary = one(result.message, "Done.");
    const hasDiff = typeof result.diff === "string" && result.diff !== "";
    if (options.dryRun === true) {
      return { severity: "info", text: `Complex Edit (preview): ${summary}${suffix}`, actions: [] };
    }
    if (isReviewResult(result)) {
      const landed = hasDiff && result.applied === true;
      return { severity: "info", text: `Complex Edit: ${reviewText(result)}${suffix}`, actions: landed ? ["Show Diff"] : [] };
    }
    return {
      severity: "info",
      text: `Complex Edit: ${summary}${suffix}`,
      actions: hasDiff ? ["Show Diff"] : [],
    };
  }
  const reason = result.reason;
  const text = `Complex Edit failed — ${reasonText(reason)}: ${one(result.error, "no details given")}${suffix}`;
  const remedy = remedyOf(reason);
  const actions: Action[] = remedy === undefined ? [] : [...REMEDY_ACTIONS[remedy]];
  actions.push("Show Log");
  return { severity: remedy === "wait" ? "warning" : "error", text, actions };
}

/** A JSON-RPC error (or any thrown value) from the request, as a notice. */
export function renderRequestError(error: unknown): Notice {
  const code = errorCode(error);
  if (code === REQUEST_CANCELLED) {
    return { severity: "info", text: "Complex Edit: cancelled; nothing was applied.", actions: [] };
  }
  const message = error instanceof Error ? error.message : String(error);
  if (code === INVALID_PARAMS) {
    return { severity: "error", text: `Complex Edit: the server refused the request: ${message}`, actions: ["Show Log"] };
  }
  return { severity: "error", text: `Complex Edit: the request failed: ${message}`, actions: ["Show Log"] };
}

export function errorCode(error: unknown): number | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = error.code;
    return typeof code === "number" ? code : undefined;
  }
  return undefined;
}

/** The first line of a tool answer after the user reviewed the changes. */
function reviewToolLine(result: EditResult, file: string, saved: boolean): string {
  const declined = result.declined ?? 0;
  if (result.applied === true) {
    const kept = declined === 0 ? "the user kept every change" : `the user declined ${plural(declined, "change")}, which did NOT land`;
    return `Edited ${file} after review: ${kept}; the diff below is what was applied${saved ? " (file saved)" : " (not saved yet)"}.`;
  }
  if (Array.isArray(result.hunks)) {
    return `${file}: ${plural(result.hunks.length, "change")} proposed for review; nothing was applied.`;
  }
  return `${file}: the user declined ${declined === 0 ? "the change" : `all ${plural(declined, "change")}`}; nothing was applied.`;
}

/** The text a language-model tool returns to the outer agent. */
export function renderToolResult(result: EditResult, file: string, options: { dryRun?: boolean; saved?: boolean } = {}): string {
  const lines: string[] = [];
  const detail = counts(result);
  if (result.success) {
    if (options.dryRun === true) {
      lines.push(`Dry run on ${file}: the change was computed and NOT applied.`);
    } else if (isReviewResult(result)) {
      lines.push(reviewToolLine(result, file, options.saved === true));
    } else if (result.applied === true) {
      lines.push(
        `Edited ${file}: the change was applied${options.saved === true ? " and the file saved" : " in the editor (not saved yet)"}.`,
      );
    } else {
      lines.push(`${file}: nothing to change.`);
    }
    lines.push(`Summary: ${one(result.message, "done")}`);
  } else {
    lines.push(`The edit of ${file} failed (${result.reason ?? "unknown"}): ${one(result.error, "no details given")}`);
    lines.push(result.applied === true ? "The editor did apply a change; check the file." : "Nothing was applied.");
  }
  if (detail !== "") {
    lines.push(`Sub-agent: ${detail}.`);
  }
  if (typeof result.diff === "string" && result.diff !== "") {
    lines.push("", "Unified diff:", "```diff", result.diff.replace(/\n$/, ""), "```");
  }
  return lines.join("\n");
}
