import { describe, expect, it } from "vitest";
import { OPEN_FILE_COMMAND, commandLink, documentsOf, otherFilesText, plainText, savingText } from "../../src/core/documents";

const same = (a: string, b: string): boolean => a === b;
const label = (uri: string): string => uri.replace("file:///p/", "");

describe("documentsOf", () => {
  it("reads the entries that name a document", () => {
    const docs = [{ uri: "file:///p/a.py", applied: true }, { applied: true }, "x", { uri: "file:///p/b.py" }];
    expect(documentsOf(docs)).toEqual([{ uri: "file:///p/a.py", applied: true }, { uri: "file:///p/b.py" }]);
    expect(documentsOf(undefined)).toEqual([]);
  });
});

describe("otherFilesText", () => {
  const docs = [
    { uri: "file:///p/a.py", applied: true },
    { uri: "file:///p/lib/b.py", applied: true },
    { uri: "file:///p/c.py", applied: true },
  ];

  it("links each changed file that is not open, and counts the open ones", () => {
    const text = otherFilesText(docs, "file:///p/a.py", same, (uri) => uri.endsWith("c.py"), label);
    const link = commandLink("lib/b.py", OPEN_FILE_COMMAND, "file:///p/lib/b.py");
    expect(text).toBe(` — also changed, not open: ${link}; 1 other open file changed.`);
    expect(link).toBe(`[lib/b.py](command:${OPEN_FILE_COMMAND}?${encodeURIComponent('["file:///p/lib/b.py"]')})`);
  });

  it("says nothing for a single document", () => {
    expect(otherFilesText(docs.slice(0, 1), "file:///p/a.py", same, () => false, label)).toBe("");
    expect(otherFilesText([], "file:///p/a.py", same, () => false, label)).toBe("");
  });
});

describe("savingText", () => {
  it("names the files VS Code wrote to disk and those it left unsaved", () => {
    expect(savingText([], ["a.py", "lib/b.py"])).toBe(" Not saved yet (File: Save All writes them): a.py, lib/b.py.");
    expect(savingText(["a.py", "lib/b.py"], [])).toBe(" Saved to disk: a.py, lib/b.py.");
    expect(savingText(["a.py"], ["lib/b.py"])).toBe(" Saved to disk: a.py; not saved yet (File: Save All writes them): lib/b.py.");
    expect(savingText([], [])).toBe("");
  });
});

describe("plainText", () => {
  it("keeps a model's summary from making links", () => {
    expect(plainText("see [here](command:evil)\n now")).toBe("see [here] (command:evil) now");
  });
});
