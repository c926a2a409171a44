/**
 * The `performComplexEdit` LSP command: its name, its JSON-RPC errors and checks of what the
 * server answered. The wire types and reason codes are generated from the server's models
 * (`generated/protocol.ts`, docs/protocol.md).
 */

export const COMMAND = "performComplexEdit";
/** Lands the hunks a reviewer kept of a proposal (`propose`'s answer): `{ proposalId, keep }`. */
export const REVIEW_COMMAND = "complexEdit.applyReview";

import type { ChangedLines, EditResult, ErrorData, LineSpan, PerformArgs, WirePosition, WireRange } from "./generated/protocol";

export type { ChangedLines, EditResult, LineSpan, PerformArgs, Reason, Remedy } from "./generated/protocol";
export { REASONS, REASON_REMEDIES, REASON_TEXTS } from "./generated/protocol";

export type Position = WirePosition;
export type Range = WireRange;
/** What the sub-agent may do with the workspace's other files (the `otherFiles` argument). */
export type OtherFiles = NonNullable<PerformArgs["otherFiles"]>;

/** JSON-RPC error codes the command answers with. */
export const INVALID_PARAMS = -32602;
export const REQUEST_CANCELLED = -32800;
/** The `data.code` of the InvalidParams error for a document the server has not seen opened. */
export const DOCUMENT_NOT_OPEN: ErrorData["code"] = "document_not_open";

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
  const value: unknown = result.changedLines;
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
