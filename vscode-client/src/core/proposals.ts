/**
 * The open preview proposals. One proposal has one state: it is open until it ends (applied,
 * discarded, its diff tab closed, its document changed), once; every control that offers it (the
 * toast, the diff tab and its title buttons, the palette) listens for that end and goes away.
 */

export type ProposalEnd = "applied" | "discarded" | "closed" | "stale" | "disposed";

interface Entry<T> {
  value: T;
  listeners: ((why: ProposalEnd) => void)[];
}

export class Proposals<T> {
  private readonly open = new Map<string, Entry<T>>();
  private readonly ended = new Map<string, ProposalEnd>();

  add(id: string, value: T): void {
    if (this.open.has(id) || this.ended.has(id)) {
      throw new Error(`proposal ${id} exists already`);
    }
    this.open.set(id, { value, listeners: [] });
  }

  get(id: string): T | undefined {
    return this.open.get(id)?.value;
  }

  get size(): number {
    return this.open.size;
  }

  ids(): string[] {
    return [...this.open.keys()];
  }

  /** Calls `listener` when the proposal ends; at once when it has ended already. */
  onEnd(id: string, listener: (why: ProposalEnd) => void): void {
    const entry = this.open.get(id);
    if (entry !== undefined) {
      entry.listeners.push(listener);
      return;
    }
    listener(this.ended.get(id) ?? "disposed");
  }

  /**
   * Ends the proposal and tells its listeners. Returns its value the first time only: a control
   * acting on a proposal that has already ended gets nothing to act on.
   */
  end(id: string, why: ProposalEnd): T | undefined {
    const entry = this.open.get(id);
    if (entry === undefined) {
      return undefined;
    }
    this.open.delete(id);
    this.ended.set(id, why);
    for (const listener of entry.listeners) {
      listener(why);
    }
    return entry.value;
  }

  endAll(why: ProposalEnd): void {
    for (const id of this.ids()) {
      this.end(id, why);
    }
  }

  /**
   * The proposal a command is about: the one it names (nothing when that one has ended, never
   * another), else the one in the active editor, else the latest one opened.
   */
  target(named: string | undefined, active: string | undefined): string | undefined {
    if (named !== undefined) {
      return this.open.has(named) ? named : undefined;
    }
    if (active !== undefined && this.open.has(active)) {
      return active;
    }
    return this.ids().pop();
  }
}

/** Notifications show one line of text: a long summary is cut (VS Code's own limit is 1,000). */
const SUMMARY_LIMIT = 300;

function commandLink(label: string, command: string, id: string): string {
  return `[${label}](command:${command}?${encodeURIComponent(JSON.stringify([id]))})`;
}

/**
 * The proposal toast's text: Apply and Discard as command links bound to this proposal, then the
 * summary. The summary comes from the model: it is flattened and shortened, it comes after the
 * links (an unclosed `[` in it cannot swallow them), and it cannot make a link of its own
 * (`[label](command:...)` is broken up).
 */
export function proposalText(summary: string, detail: string, id: string, commands: { apply: string; discard: string }): string {
  let flat = summary.replace(/\s+/g, " ").trim() || "Done.";
  if (flat.length > SUMMARY_LIMIT) {
    flat = `${flat.slice(0, SUMMARY_LIMIT - 1)}…`;
  }
  flat = flat.replace(/\]\s*\(/g, "] (");
  const counts = detail === "" ? "" : ` (${detail})`;
  const links = `${commandLink("Apply", commands.apply, id)} or ${commandLink("Discard", commands.discard, id)}`;
  return `Complex Edit proposal: ${links} — ${flat}${counts}`;
}

/** What the output channel says when a proposal ends. */
export function proposalEndLine(name: string, why: ProposalEnd): string {
  const text: Record<ProposalEnd, string> = {
    applied: "applied",
    discarded: "discarded",
    closed: "discarded (its diff tab was closed)",
    stale: "discarded (the document changed since the preview)",
    disposed: "discarded (the extension stopped)",
  };
  return `[client] proposal for ${name}: ${text[why]}`;
}
