import { describe, expect, it } from "vitest";
import { type EditResult, REASONS } from "../../src/core/protocol";
import { counts, reasonText, renderRequestError, renderResult, renderToolResult, reviewText } from "../../src/core/render";

const diff = "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-a\n+b\n";

describe("renderResult", () => {
  it("shows the summary and the counts on success, offering the diff", () => {
    const notice = renderResult({ success: true, applied: true, message: "renamed foo", diff, turns: 2, toolCalls: 1 });
    expect(notice).toEqual({ severity: "info", text: "Complex Edit: renamed foo (2 turns, 1 tool call)", actions: ["Show Diff"] });
  });

  it("flattens a multi-line summary", () => {
    expect(renderResult({ success: true, message: "one\n  two" }).text).toBe("Complex Edit: one two");
  });

  it("shows the error with its reason on failure", () => {
    const notice = renderResult({ success: false, reason: "max_turns", error: "Reached 8 turns.", turns: 8, toolCalls: 9 });
    expect(notice.severity).toBe("error");
    expect(notice.text).toBe("Complex Edit failed — the turn limit was reached: Reached 8 turns. (8 turns, 9 tool calls)");
    expect(notice.actions).toEqual(["Try Again", "Show Log"]);
  });

  it("offers the key command for auth and config failures", () => {
    expect(renderResult({ success: false, reason: "auth", error: "bad key" }).actions).toContain("Set API Key");
    expect(renderResult({ success: false, reason: "config", error: "no key" }).actions).toContain("Set API Key");
  });

  it("has a text for every contract reason, and passes unknown ones through", () => {
    for (const reason of REASONS) {
      expect(reasonText(reason)).not.toBe(reason);
    }
    expect(reasonText("new_reason")).toBe("new_reason");
  });

  it("counts nothing when the server sent no counts", () => {
    expect(counts({ success: true })).toBe("");
  });
});

describe("renderRequestError", () => {
  it("reports a cancelled request as cancelled", () => {
    const error = Object.assign(new Error("The complex edit was cancelled."), { code: -32800 });
    expect(renderRequestError(error)).toMatchObject({ severity: "info", text: "Complex Edit: cancelled; nothing was applied." });
  });
  it("reports invalid params with the server's message", () => {
    const error = Object.assign(new Error("The document x is not open"), { code: -32602 });
    expect(renderRequestError(error).text).toBe("Complex Edit: the server refused the request: The document x is not open");
  });
});

describe("renderToolResult", () => {
  it("says what was applied and gives the diff", () => {
    const out = renderToolResult({ success: true, applied: true, message: "done it", diff, turns: 1, toolCalls: 2 }, "src/a.py", { saved: true });
    expect(out).toContain("Edited src/a.py: the change was applied and the file saved.");
    expect(out).toContain("Summary: done it");
    expect(out).toContain("Sub-agent: 1 turn, 2 tool calls.");
    expect(out).toContain("```diff\n--- a.py\n+++ a.py\n@@ -1 +1 @@\n-a\n+b\n```");
  });
  it("marks a dry run as not applied", () => {
    expect(renderToolResult({ success: true, diff }, "a.py", { dryRun: true })).toContain("NOT applied");
  });
  it("says an unsaved edit is unsaved", () => {
    expect(renderToolResult({ success: true, applied: true, diff }, "a.py")).toContain("not saved yet");
  });
  it("gives the reason and says nothing was applied on failure", () => {
    const out = renderToolResult({ success: false, reason: "task_failed", error: "no such function" }, "a.py");
    expect(out).toContain("The edit of a.py failed (task_failed): no such function");
    expect(out).toContain("Nothing was applied.");
  });
});

describe("review answers", () => {
  it("says what landed in the server's words, offering the diff of it", () => {
    const notice = renderResult({
      success: true,
      applied: true,
      declined: 1,
      message: "Applied 2 of 3 changes; you declined 1.",
      diff,
    });
    expect(notice).toEqual({ severity: "info", text: "Complex Edit: Applied 2 of 3 changes; you declined 1.", actions: ["Show Diff"] });
  });

  it("treats declining everything as a plain answer, not a failure", () => {
    const notice = renderResult({ success: true, applied: false, declined: 3, message: "You declined all 3 changes; nothing was applied.", diff: "" });
    expect(notice).toEqual({ severity: "info", text: "Complex Edit: You declined all 3 changes; nothing was applied.", actions: [] });
  });

  it("builds the sentence from applied and declined when the server gives none", () => {
    expect(reviewText({ success: true, applied: true, declined: 1 })).toBe("Applied the changes you kept; you declined 1.");
    expect(reviewText({ success: true, applied: true, declined: 0 })).toBe("Applied every change.");
    expect(reviewText({ success: true, applied: false, declined: 2 })).toBe("You declined all 2 changes; nothing was applied.");
    expect(reviewText({ success: true, applied: false, hunks: [{}, {}, {}] as unknown as EditResult["hunks"] })).toBe("3 changes proposed for review; nothing was applied.");
  });

  it("tells the outer agent which changes the user declined", () => {
    const partly = renderToolResult({ success: true, applied: true, declined: 1, message: "Applied 1 of 2 changes; you declined 1.", diff }, "a.py", { saved: true });
    expect(partly).toContain("Edited a.py after review: the user declined 1 change, which did NOT land; the diff below is what was applied (file saved).");
    expect(partly).toContain("```diff");
    const none = renderToolResult({ success: true, applied: false, declined: 2, message: "You declined all 2 changes; nothing was applied." }, "a.py");
    expect(none).toContain("a.py: the user declined all 2 changes; nothing was applied.");
    expect(none).not.toContain("Edited");
  });

  it("leaves answers without review as they were", () => {
    expect(renderResult({ success: true, applied: true, message: "renamed foo", diff }).text).toBe("Complex Edit: renamed foo");
  });
});
