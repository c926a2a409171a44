/** The wire shapes of the `performComplexEdit` LSP command (see the project's contract). */

export const COMMAND = "performComplexEdit";

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** The one argument object of `performComplexEdit`. */
export interface PerformArgs {
  textDocument: { uri: string };
  prompt: string;
  range?: Range;
  dryRun?: boolean;
  /** The user confirms or declines each change before it lands. */
  review?: boolean;
  maxTurns?: number;
  model?: string;
  /** "edit": the sub-agent may change other files of the workspace too (contract: "Other files"). */
  otherFiles?: OtherFiles;
}

export type OtherFiles = "off" | "read" | "edit";

export const REASONS = [
  "task_failed",
  "max_turns",
  "model_error",
  "auth",
  "quota",
  "blocked",
  "document_changed",
  "client_rejected",
  "cancelled",
  "busy",
  "invalid_request",
  "too_large",
  "config",
] as const;

export type Reason = (typeof REASONS)[number];

/** Lines `start` up to `end` (0-based, end exclusive); `start === end` is the place between two lines. */
export interface LineSpan {
  start: number;
  end: number;
}

/**
 * One changed region of a result, in order: the lines of the snapshot it replaced and the lines
 * holding its new text in the document after the edit (for a dry run: in the proposed text).
 */
export interface ChangedLines {
  snapshot: LineSpan;
  document: LineSpan;
}

/** The answer of `performComplexEdit`. */
export interface EditResult {
  success: boolean;
  message?: string;
  error?: string;
  /** A `Reason`; typed as string so a newer server's codes still read. */
  reason?: string;
  applied?: boolean;
  diff?: string;
  /** The changed regions, present whenever a non-empty `diff` is (read it with `changedLinesOf`). */
  changedLines?: unknown;
  turns?: number;
  toolCalls?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Review mode: how many changes the user declined. */
  declined?: number;
  /** Review mode without change annotations: the proposed changes (VS Code does not get these). */
  hunks?: unknown[];
  /** The document version the result was computed against. */
  version?: number;
  /** An edit across files: one entry per changed document, the command's own first (read it with `documentsOf`). */
  documents?: unknown;
}

/** JSON-RPC error codes the command answers with. */
export const INVALID_PARAMS = -32602;
export const REQUEST_CANCELLED = -32800;
/** The `data.code` of the InvalidParams error for a document the server has not seen opened. */
export const DOCUMENT_NOT_OPEN = "document_not_open";

/** Whether a JSON-RPC error (`code`, `data`) says the document is not open on the server yet. */
export function isDocumentNotOpen(code: number | undefined, data: unknown): boolean {
  return (
    code === INVALID_PARAMS &&
    typeof data === "object" &&
    data !== null &&
    (data as Record<string, unknown>).code === DOCUMENT_NOT_OPEN
  );
}

function isSpan(value: unknown): value is LineSpan {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const { start, end } = value as Record<string, unknown>;
  return Number.isInteger(start) && Number.isInteger(end) && (start as number) >= 0 && (end as number) >= (start as number);
}

/**
 * The result's changed regions, or undefined when it has none or they are not well formed
 * (spans out of order or overlapping on either side).
 */
export function changedLinesOf(result: EditResult): ChangedLines[] | undefined {
  const value = result.changedLines;
  if (!Array.isArray(value)) {
    return undefined;
  }
  let snapshotFloor = 0;
  let documentFloor = 0;
  for (const entry of value as unknown[]) {
    if (typeof entry !== "object" || entry === null) {
      return undefined;
    }
    const { snapshot, document } = entry as Record<string, unknown>;
    if (!isSpan(snapshot) || !isSpan(document) || snapshot.start < snapshotFloor || document.start < documentFloor) {
      return undefined;
    }
    snapshotFloor = snapshot.end;
    documentFloor = document.end;
  }
  return value as ChangedLines[];
}

/** Narrow an unknown answer to an `EditResult`, or undefined when it is not one. */
export function asEditResult(value: unknown): EditResult | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  if (typeof record.success !== "boolean") {
    return undefined;
  }
  return record as unknown as EditResult;
}
