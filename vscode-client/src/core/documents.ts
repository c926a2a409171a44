/**
 * The answer's `documents` (an edit across files: one entry per changed document, the command's
 * own first) and the part of the result message that lists the changed files the user does not
 * have open, each a link that opens it.
 */

/** One changed document of the answer. */
export interface ChangedDocument {
  uri: string;
  applied?: boolean;
  diff?: string;
  changedLines?: unknown;
  version?: number;
}

/** The command that opens a file a result message links to (its one argument: the URI). */
export const OPEN_FILE_COMMAND = "complexEdit.openFile";

/** The answer's well-formed `documents` entries (none when it has none). */
export function documentsOf(value: unknown): ChangedDocument[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return (value as unknown[]).filter(
    (entry): entry is ChangedDocument =>
      typeof entry === "object" && entry !== null && typeof (entry as Record<string, unknown>).uri === "string",
  );
}

/** A command link in a notification's text: `[label](command:ID?["arg"])`. */
export function commandLink(label: string, command: string, arg: string): string {
  return `[${label.replace(/[[\]]/g, "")}](command:${command}?${encodeURIComponent(JSON.stringify([arg]))})`;
}

/**
 * Text from the model, made safe to show next to links: flattened to one line, and unable to
 * make a link of its own (`[label](...)` is broken up).
 */
export function plainText(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/\]\s*\(/g, "] (");
}

/**
 * " — also changed, not open: [b.py](…), [c.py](…)." for the documents other than
 * `own` that changed, among which `isOpen` says which the user has open (those need no link);
 * `labelOf` names a file (its workspace-relative path). Empty when there are none.
 */
export function otherFilesText(
  documents: readonly ChangedDocument[],
  own: string,
  same: (a: string, b: string) => boolean,
  isOpen: (uri: string) => boolean,
  labelOf: (uri: string) => string,
): string {
  const others = documents.filter((doc) => !same(doc.uri, own) && doc.applied !== false);
  if (others.length === 0) {
    return "";
  }
  const closed = others.filter((doc) => !isOpen(doc.uri));
  const open = others.length - closed.length;
  const parts: string[] = [];
  if (closed.length > 0) {
    const links = closed.map((doc) => commandLink(labelOf(doc.uri), OPEN_FILE_COMMAND, doc.uri)).join(", ");
    parts.push(`also changed, not open: ${links}`);
  }
  if (open > 0) {
    parts.push(`${open} other open ${open === 1 ? "file" : "files"} changed`);
  }
  return ` — ${parts.join("; ")}.`;
}

/**
 * What became of the files of an edit across files once it landed: which VS Code wrote to disk
 * (`saved`) and which it left with unsaved changes (`unsaved`), by name.
 */
export function savingText(saved: readonly string[], unsaved: readonly string[]): string {
  const hint = "File: Save All writes them";
  if (unsaved.length === 0) {
    return saved.length === 0 ? "" : ` Saved to disk: ${saved.join(", ")}.`;
  }
  if (saved.length === 0) {
    return ` Not saved yet (${hint}): ${unsaved.join(", ")}.`;
  }
  return ` Saved to disk: ${saved.join(", ")}; not saved yet (${hint}): ${unsaved.join(", ")}.`;
}
