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
}

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

/** The answer of `performComplexEdit`. */
export interface EditResult {
  success: boolean;
  message?: string;
  error?: string;
  /** A `Reason`; typed as string so a newer server's codes still read. */
  reason?: string;
  applied?: boolean;
  diff?: string;
  turns?: number;
  toolCalls?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Review mode: how many changes the user declined. */
  declined?: number;
  /** Review mode without change annotations: the proposed changes (VS Code does not get these). */
  hunks?: unknown[];
  /** The document version the result was computed against. */
  version?: number;
}

/** JSON-RPC error codes the command answers with. */
export const INVALID_PARAMS = -32602;
export const REQUEST_CANCELLED = -32800;

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
