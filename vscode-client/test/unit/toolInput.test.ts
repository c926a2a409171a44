import { describe, expect, it } from "vitest";
import { OTHER_FILES, checkLines, resolveToolFile, validateToolInput } from "../../src/core/toolInput";
import manifest from "../../package.json";

describe("validateToolInput", () => {
  it("accepts file and instruction, with optional lines and dryRun", () => {
    expect(validateToolInput({ file: " a.py ", instruction: "add types" })).toEqual({ ok: true, value: { file: "a.py", instruction: "add types" } });
    expect(validateToolInput({ file: "a.py", instruction: "x", startLine: 3, endLine: 5.0, dryRun: true })).toEqual({
      ok: true,
      value: { file: "a.py", instruction: "x", startLine: 3, endLine: 5, dryRun: true },
    });
  });

  it.each([
    [null, "must be an object"],
    [[], "must be an object"],
    [{ instruction: "x" }, "'file'"],
    [{ file: "", instruction: "x" }, "'file'"],
    [{ file: "a", instruction: "  " }, "'instruction'"],
    [{ file: "a", instruction: "x", startLine: 0 }, "'startLine' must be a whole number"],
    [{ file: "a", instruction: "x", startLine: 1.5 }, "'startLine'"],
    [{ file: "a", instruction: "x", startLine: "3" }, "'startLine'"],
    [{ file: "a", instruction: "x", endLine: 3 }, "without 'startLine'"],
    [{ file: "a", instruction: "x", startLine: 5, endLine: 3 }, "is before"],
    [{ file: "a", instruction: "x", dryRun: "yes" }, "'dryRun'"],
  ])("refuses %j naming the problem", (input, message) => {
    const checked = validateToolInput(input);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? "" : checked.error).toContain(message);
  });

  it("agrees with the manifest's input schema on the field names", () => {
    const tool = manifest.contributes.languageModelTools[0];
    expect(Object.keys(tool?.inputSchema.properties ?? {}).sort()).toEqual(["dryRun", "endLine", "file", "instruction", "otherFiles", "startLine"]);
    expect(tool?.inputSchema.required).toEqual(["file", "instruction"]);
  });
});

describe("checkLines", () => {
  it("refuses lines past the end", () => {
    expect(checkLines({ file: "a", instruction: "x", startLine: 4 }, 3)).toContain("past the end");
    expect(checkLines({ file: "a", instruction: "x", startLine: 1, endLine: 9 }, 3)).toContain("'endLine' 9");
    expect(checkLines({ file: "a", instruction: "x", startLine: 1, endLine: 3 }, 3)).toBeUndefined();
  });
});

describe("resolveToolFile", () => {
  const folders = [
    { name: "app", path: "/work/app" },
    { name: "lib", path: "/work/lib/" },
  ];
  it("keeps absolute paths and URIs", () => {
    expect(resolveToolFile("/tmp/x.py", folders)).toEqual({ ok: true, value: { kind: "path", path: "/tmp/x.py" } });
    expect(resolveToolFile("C:\\x.py", folders)).toEqual({ ok: true, value: { kind: "path", path: "C:\\x.py" } });
    expect(resolveToolFile("file:///tmp/x.py", folders)).toEqual({ ok: true, value: { kind: "uri", uri: "file:///tmp/x.py" } });
  });
  it("resolves relative paths in the first folder, or the folder the path names", () => {
    expect(resolveToolFile("./src/x.py", folders)).toEqual({ ok: true, value: { kind: "path", path: "/work/app/src/x.py" } });
    expect(resolveToolFile("lib/x.py", folders)).toEqual({ ok: true, value: { kind: "path", path: "/work/lib/x.py" } });
    expect(resolveToolFile("lib/x.py", [folders[0] as { name: string; path: string }])).toEqual({ ok: true, value: { kind: "path", path: "/work/app/lib/x.py" } });
  });
  it("refuses a relative path without a workspace", () => {
    expect(resolveToolFile("x.py", []).ok).toBe(false);
  });
});

describe("otherFiles", () => {
  it("takes the server's modes and refuses anything else", () => {
    expect(validateToolInput({ file: "a", instruction: "x", otherFiles: "edit" })).toEqual({
      ok: true,
      value: { file: "a", instruction: "x", otherFiles: "edit" },
    });
    expect(validateToolInput({ file: "a", instruction: "x" })).toEqual({ ok: true, value: { file: "a", instruction: "x" } });
    const refused = validateToolInput({ file: "a", instruction: "x", otherFiles: "all" });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? "" : refused.error).toContain(`'otherFiles' must be one of "off", "read", "edit"; got "all"`);
  });
  it("declares the same modes in the tool's input schema (the server's: tests/unit/test_docs.py)", () => {
    const tool = manifest.contributes.languageModelTools.find((t) => t.name === "complexEdit_editFile");
    expect(tool?.inputSchema.properties.otherFiles.enum).toEqual([...OTHER_FILES]);
  });
});
