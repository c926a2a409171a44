/**
 * What the extension itself writes to the Complex Edit output channel about a run: cancels and
 * retries. The server's log reaches the channel through `window/logMessage` (once per line),
 * and it already says how each command ended; these are the events only the client sees, or
 * that the server reports only as progress.
 *
 * Progress messages also describe tool calls, which quote the document: only retry reports are
 * logged, never the others.
 */

/**
 * A retry report of the server's progress (server/events.py `describe(ModelRetrying)`):
 * `Turn 2/8 · rate limited; retry 2/4 in 3 s`. Tool-call reports quote document text between
 * quotes, so a report with a quote in it is never taken for one.
 */
const RETRY_REPORT = /^Turn \d+\/\d+ · [^'"]*; retry \d+\/\d+ in \d+(?:\.\d+)? s$/;

export function isRetryReport(message: string): boolean {
  return RETRY_REPORT.test(message);
}

export type CancelSource = "the progress notification" | "the caller" | "a server restart";

export class RunLog {
  constructor(private readonly append: (line: string) => void) {}

  /** A progress report: logged when it is a retry of the model request. */
  progress(message: string | undefined): void {
    if (message !== undefined && isRetryReport(message)) {
      this.append(`[client] ${message}`);
    }
  }

  cancelRequested(source: CancelSource, what = "the edit"): void {
    this.append(`[client] ${what}: cancel requested from ${source}`);
  }

  cancelled(what: string): void {
    this.append(`[client] ${what}: cancelled; nothing was applied`);
  }

  /** The client's own retry: the document was opened a moment ago and the server has not seen it yet. */
  notOpenYet(what: string, retry: number, retries: number): void {
    this.append(`[client] ${what} is not open on the server yet; retry ${retry}/${retries}`);
  }
}
