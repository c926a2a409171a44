import { describe, expect, it } from "vitest";
import { OPEN_FILE_COMMAND } from "../../src/core/documents";
import manifest from "../../package.json";

describe("the manifest's commands for several files and the live diff", () => {
  const commands = new Map(manifest.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));

  it("declares Edit Across Files…, Show Live Diff and the hidden Open Changed File", () => {
    expect(commands.get("complexEdit.editAcrossFiles")).toBe("Complex Edit: Edit Across Files…");
    expect(commands.get("complexEdit.showLiveDiff")).toBe("Complex Edit: Show Live Diff");
    expect(commands.has(OPEN_FILE_COMMAND)).toBe(true);
    const palette = manifest.contributes.menus.commandPalette;
    expect(palette.find((m) => m.command === OPEN_FILE_COMMAND)?.when).toBe("false");
  });
});
