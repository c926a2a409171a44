import { describe, expect, it } from "vitest";
import { RunLog, isRetryReport } from "../../src/core/runLog";

function recorded(): { log: RunLog; lines: string[] } {
  const lines: string[] = [];
  return { log: new RunLog((line) => lines.push(line)), lines };
}

describe("RunLog", () => {
  it("logs the server's retry reports", () => {
    const { log, lines } = recorded();
    log.progress("Turn 2/8 · rate limited; retry 2/4 in 3 s");
    log.progress("Turn 1/8 · no answer in 60 s; retry 1/3 in 2.5 s");
    expect(lines).toEqual([
      "[client] Turn 2/8 · rate limited; retry 2/4 in 3 s",
      "[client] Turn 1/8 · no answer in 60 s; retry 1/3 in 2.5 s",
    ]);
  });

  it("never logs other progress: tool calls quote the document", () => {
    const { log, lines } = recorded();
    for (const message of [
      "Turn 1/8 · waiting for the model…",
      "Turn 1/8 · replace_text 'x; retry 1/2 in 3 s' → 'y'",
      'Turn 1/8 · ✓ replace_text "it\'s; retry 1/2 in 3 s" → "z"',
      "Done: renamed",
      undefined,
    ]) {
      log.progress(message);
    }
    expect(lines).toEqual([]);
    expect(isRetryReport("Turn 3/8 · server error; retry 1/3 in 45 s")).toBe(true);
  });

  it("logs cancels, from where they came, and the client's own retries", () => {
    const { log, lines } = recorded();
    log.cancelRequested("the progress notification");
    log.cancelRequested("the caller", "greet.py");
    log.cancelled("greet.py");
    log.notOpenYet("new.py", 1, 5);
    expect(lines).toEqual([
      "[client] the edit: cancel requested from the progress notification",
      "[client] greet.py: cancel requested from the caller",
      "[client] greet.py: cancelled; nothing was applied",
      "[client] new.py is not open on the server yet; retry 1/5",
    ]);
  });
});
