import { describe, expect, it } from "vitest";
import { progressText } from "../../src/core/progressText";

describe("progressText", () => {
  it("shows the server's text as it is", () => {
    expect(progressText("Turn 2/8 · waiting for the model… (+12 −3 lines so far)")).toBe(
      "Turn 2/8 · waiting for the model… (+12 −3 lines so far)",
    );
  });

  it("keeps every line of a multi-line report on the notification's one line", () => {
    expect(progressText("Turn 3/8 · waiting for the model…\n+12 −3 lines\r\n  replace_text ✓  \n")).toBe(
      "Turn 3/8 · waiting for the model… · +12 −3 lines · replace_text ✓",
    );
  });

  it("has nothing to show for no or blank text", () => {
    expect(progressText(undefined)).toBeUndefined();
    expect(progressText(" \n ")).toBeUndefined();
  });
});
