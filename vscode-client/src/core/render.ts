/** Turns the server's answer into what the user (or an outer agent) reads. */

import { type EditResult, INVALID_PARAMS, REQUEST_CANCELLED } from "./protocol";

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

const REASON_TEXT: Record<string, string> = {
  task_failed: "the sub-agent could not do it",
  max_turns: "the turn limit was reached",
  model_error: "model error",
  auth: "the API key was refused",
  quota: "quota or rate limit",
  blocked: "the model refused the content",
  document_changed: "the document changed meanwhile",
  client_rejected: "VS Code did not apply the edit",
  cancelled: "the edit was cancelled",
  busy: "another edit is running on this document",
  invalid_request: "invalid request",
  too_large: "the document is too large",
  config: "configuration problem",
};

export function reasonText(reason: string | undefined): string {
  if (reason === undefined) {
    return "unknown reason";
  }
  return REASON_TEXT[reason] ?? reason;
}

function one(text: string | undefined, fallback: string): string {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat === "" ? fallback : flat;
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
    return {
      severity: "info",
      text: `Complex Edit: ${summary}${suffix}`,
      actions: hasDiff ? ["Show Diff"] : [],
    };
  }
  const reason = result.reason;
  const text = `Complex Edit failed — ${reasonText(reason)}: ${one(result.error, "no details given")}${suffix}`;
  const actions: Action[] = [];
  if (reason === "auth" || reason === "config") {
    actions.push("Set API Key", "Open Settings");
  } else if (reason === "document_changed" || reason === "busy" || reason === "max_turns") {
    actions.push("Try Again");
  }
  actions.push("Show Log");
  return { severity: reason === "busy" ? "warning" : "error", text, actions };
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

/** The text a language-model tool returns to the outer agent. */
export function renderToolResult(result: EditResult, file: string, options: { dryRun?: boolean; saved?: boolean } = {}): string {
  const lines: string[] = [];
  const detail = counts(result);
  if (result.success) {
    if (options.dryRun === true) {
      lines.push(`Dry run on ${file}: the change was computed and NOT applied.`);
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
