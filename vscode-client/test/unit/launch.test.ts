import { describe, expect, it } from "vitest";
import { LaunchError, findOnPath, resolveLaunch, serverEnvironment } from "../../src/core/launch";

const nowhere = () => undefined;

describe("resolveLaunch", () => {
  it("runs `complex-edit lsp` from PATH by default", () => {
    expect(resolveLaunch({ configuredPath: "complex-edit", logLevel: "INFO", findOnPath: () => "/usr/bin/complex-edit" })).toEqual({
      command: "/usr/bin/complex-edit",
      args: ["lsp", "--log-level", "INFO"],
      source: "path",
    });
  });

  it("takes an absolute path as given and adds lsp", () => {
    const launch = resolveLaunch({ configuredPath: "/venv/bin/complex-edit", logLevel: "DEBUG", findOnPath: nowhere });
    expect(launch).toEqual({ command: "/venv/bin/complex-edit", args: ["lsp", "--log-level", "DEBUG"], source: "setting" });
  });

  it("expands ~, ${workspaceFolder} and workspace-relative paths", () => {
    const base = { logLevel: undefined, findOnPath: nowhere, home: "/home/me", workspaceFolder: "/work/proj" };
    expect(resolveLaunch({ ...base, configuredPath: "~/.venv/bin/complex-edit" }).command).toBe("/home/me/.venv/bin/complex-edit");
    expect(resolveLaunch({ ...base, configuredPath: "${workspaceFolder}/.venv/bin/complex-edit" }).command).toBe(
      "/work/proj/.venv/bin/complex-edit",
    );
    expect(resolveLaunch({ ...base, configuredPath: ".venv/bin/complex-edit" }).command).toBe("/work/proj/.venv/bin/complex-edit");
  });

  it("falls back to the selected interpreter's -m server when complex-edit is not on PATH", () => {
    const launch = resolveLaunch({ configuredPath: "", logLevel: "bogus", findOnPath: nowhere, interpreter: ["/py/bin/python"] });
    expect(launch).toEqual({ command: "/py/bin/python", args: ["-m", "complex_edit", "lsp", "--log-level", "INFO"], source: "interpreter" });
  });

  it("keeps the interpreter's own arguments (conda run and friends)", () => {
    const launch = resolveLaunch({ configuredPath: undefined, logLevel: "INFO", findOnPath: nowhere, interpreter: ["conda", "run", "-n", "x", "python"] });
    expect(launch.command).toBe("conda");
    expect(launch.args.slice(0, 6)).toEqual(["run", "-n", "x", "python", "-m", "complex_edit"]);
  });

  it("says what to do when nothing is found", () => {
    expect(() => resolveLaunch({ configuredPath: "complex-edit", logLevel: "INFO", findOnPath: nowhere })).toThrow(LaunchError);
    expect(() => resolveLaunch({ configuredPath: "complex-edit", logLevel: "INFO", findOnPath: nowhere })).toThrow(/complexEdit\.server\.path/);
  });
});

describe("findOnPath", () => {
  it("returns the first executable candidate", () => {
    const files = new Set(["/b/complex-edit", "/c/complex-edit"]);
    expect(findOnPath("complex-edit", "/a::/b:/c", (f) => files.has(f))).toBe("/b/complex-edit");
    expect(findOnPath("complex-edit", undefined, () => true)).toBeUndefined();
  });
  it("tries PATHEXT on Windows", () => {
    const files = new Set(["C:\\py\\Scripts\\complex-edit.EXE"]);
    expect(findOnPath("complex-edit", "C:\\py\\Scripts", (f) => files.has(f), "win32", ".COM;.EXE")).toBe("C:\\py\\Scripts\\complex-edit.EXE");
  });
});

describe("serverEnvironment", () => {
  it("passes the environment through when no key is stored", () => {
    const env = serverEnvironment({ PATH: "/bin", GEMINI_API_KEY: "env-key", UNSET: undefined }, undefined);
    expect(env).toMatchObject({ PATH: "/bin", GEMINI_API_KEY: "env-key" });
    expect("UNSET" in env).toBe(false);
  });
  it("lets the stored key win over both SDK variables", () => {
    const env = serverEnvironment({ GEMINI_API_KEY: "env", GOOGLE_API_KEY: "google" }, "stored");
    expect(env.GEMINI_API_KEY).toBe("stored");
    expect("GOOGLE_API_KEY" in env).toBe(false);
  });
  it("keeps the base URL variable the tests rely on", () => {
    expect(serverEnvironment({ GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:1" }, "k").GOOGLE_GEMINI_BASE_URL).toBe("http://127.0.0.1:1");
  });
});
