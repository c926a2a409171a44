/** Validation of the language-model tool's input, with messages the outer model can act on. */

import type { OtherFiles } from "./protocol";

/** The values of `otherFiles`, the server's (PerformArgs.otherFiles in docs/protocol.schema.json). */
export const OTHER_FILES: readonly OtherFiles[] = ["off", "read", "edit"];

export interface ToolInput {
  file: string;
  instruction: string;
  startLine?: number;
  endLine?: number;
  dryRun?: boolean;
  otherFiles?: OtherFiles;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

function positiveInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}

export function validateToolInput(input: unknown): Checked<ToolInput> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, error: "The input must be an object with 'file' and 'instruction'." };
  }
  const raw = input as Record<string, unknown>;
  if (typeof raw.file !== "string" || raw.file.trim() === "") {
    return { ok: false, error: "'file' must be a non-empty path (absolute, or relative to the workspace folder)." };
  }
  if (typeof raw.instruction !== "string" || raw.instruction.trim() === "") {
    return { ok: false, error: "'instruction' must be a non-empty description of the change." };
  }
  const value: ToolInput = { file: raw.file.trim(), instruction: raw.instruction };
  // Models sometimes send integers as floats (3.0): accept whole numbers.
  for (const key of ["startLine", "endLine"] as const) {
    const line = raw[key];
    if (line === undefined || line === null) {
      continue;
    }
    if (!positiveInteger(line)) {
      return { ok: false, error: `'${key}' must be a whole number ≥ 1 (1-based line number); got ${JSON.stringify(line)}.` };
    }
    value[key] = line as number;
  }
  if (value.endLine !== undefined && value.startLine === undefined) {
    return { ok: false, error: "'endLine' was given without 'startLine'." };
  }
  if (value.startLine !== undefined && value.endLine !== undefined && value.endLine < value.startLine) {
    return { ok: false, error: `'endLine' (${value.endLine}) is before 'startLine' (${value.startLine}).` };
  }
  if (raw.dryRun !== undefined && raw.dryRun !== null) {
    if (typeof raw.dryRun !== "boolean") {
      return { ok: false, error: "'dryRun' must be true or false." };
    }
    value.dryRun = raw.dryRun;
  }
  if (raw.otherFiles !== undefined && raw.otherFiles !== null) {
    if (!OTHER_FILES.includes(raw.otherFiles as OtherFiles)) {
      return {
        ok: false,
        error: `'otherFiles' must be one of ${OTHER_FILES.map((mode) => JSON.stringify(mode)).join(", ")}; got ${JSON.stringify(raw.otherFiles)}.`,
      };
    }
    value.otherFiles = raw.otherFiles as OtherFiles;
  }
  return { ok: true, value };
}

/** Checks the line range against the document's line count. */
export function checkLines(input: ToolInput, lineCount: number): string | undefined {
  if (input.startLine !== undefined && input.startLine > lineCount) {
    return `'startLine' ${input.startLine} is past the end of the file (${lineCount} lines).`;
  }
  if (input.endLine !== undefined && input.endLine > lineCount) {
    return `'endLine' ${input.endLine} is past the end of the file (${lineCount} lines).`;
  }
  return undefined;
}

function isAbsolute(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

export type ToolTarget = { kind: "uri"; uri: string } | { kind: "path"; path: string };

/**
 * Where the tool's `file` points: a URI as given, an absolute path, or a path relative to a
 * workspace folder (the folder whose name starts the path when several are open, else the first).
 */
export function resolveToolFile(file: string, folders: readonly { name: string; path: string }[]): Checked<ToolTarget> {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]+:\/\//.test(file)) {
    return { ok: true, value: { kind: "uri", uri: file } };
  }
  if (isAbsolute(file)) {
    return { ok: true, value: { kind: "path", path: file } };
  }
  const relative = file.replace(/^\.[\\/]/, "");
  if (folders.length === 0) {
    return { ok: false, error: `'file' is relative (${file}) but no workspace folder is open; give an absolute path.` };
  }
  const [head, ...rest] = relative.split(/[\\/]/);
  const named = folders.length > 1 ? folders.find((folder) => folder.name === head) : undefined;
  const folder = named ?? folders[0];
  const tail = named !== undefined ? rest.join("/") : relative;
  return { ok: true, value: { kind: "path", path: `${(folder as { path: string }).path.replace(/[\\/]+$/, "")}/${tail}` } };
}
