/**
 * The server's own report of what an edit would use (`complexEdit.doctor`: provider, model and
 * its rules, the key present or not, settings and where each came from), as lines for the
 * output channel. The server words every check; the client adds only what it alone knows: its
 * own version, the command it starts the server with, and whether the server is running.
 */

import type { Check } from "./generated/protocol";

export const DOCTOR_COMMAND = "complexEdit.doctor";
const LEVELS: readonly string[] = ["ok", "info", "warn", "error"] satisfies Check["level"][];

export interface ClientFacts {
  extensionVersion: string;
  /** The server command line, when the client resolved one. */
  command: string | undefined;
}

/** The report's checks (the generated `Doctor`'s), read defensively: it comes off the wire. */
function checksOf(report: unknown): Required<Check>[] | undefined {
  const checks = (report as { checks?: unknown } | null)?.checks;
  if (!Array.isArray(checks)) {
    return undefined;
  }
  return checks.flatMap((item: unknown) => {
    const check = item as { level?: unknown; text?: unknown; advice?: unknown } | null;
    if (typeof check?.level !== "string" || !LEVELS.includes(check.level) || typeof check.text !== "string") {
      return [];
    }
    const advice = Array.isArray(check.advice) ? check.advice.filter((line): line is string => typeof line === "string") : [];
    return [{ level: check.level as Check["level"], text: check.text, advice }];
  });
}

/** The report's lines; `failure` when the server could not be asked (not running, an error). */
export function doctorLines(facts: ClientFacts, report: unknown, failure?: string): string[] {
  const lines = [`Complex Edit extension ${facts.extensionVersion}`, `Server command: ${facts.command ?? "not resolved"}`];
  const checks = failure === undefined ? checksOf(report) : undefined;
  if (checks === undefined) {
    lines.push(
      `The server is not running${failure !== undefined ? ` (${failure})` : ""}, so it cannot report what it would use.`,
      "Run `complex-edit doctor` in a terminal: it reads the same environment and settings variables.",
    );
    return lines;
  }
  for (const check of checks) {
    lines.push(`${check.level.toUpperCase().padEnd(6)}${check.text}`, ...check.advice.map((line) => `      ${line}`));
  }
  const problems = checks.filter((check) => check.level === "warn" || check.level === "error").length;
  lines.push(problems === 0 ? "No problems found." : `${problems} problem(s): see WARN and ERROR above.`);
  return lines;
}
