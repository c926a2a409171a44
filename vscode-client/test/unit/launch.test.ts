import { describe, expect, it } from "vitest";
import { LaunchError, STORED_KEY_VARIABLE, findOnPath, resolveLaunch, serverEnvironment } from "../../src/core/launch";

const nowhere = () => undefined;

describe("resolveLaunch", () => {
  it("runs `complex-edit lsp` from PATH by default", () => {
    expect(resolveLaunch({ configuredPath: "complex-edit", logLevel: "INFO", findOnPath: () => "/usr/bin/complex-edit" })).toEqual({
      command: "/usr/bin/complex-edit",
      args: ["lsp", "--log-level", "INFO"],
      cwd: undefined,
      source: "path",
    });
  });

  it("takes an absolute path as given and adds lsp", () => {
    const launch = resolveLaunch({ configuredPath: "/venv/bin/complex-edit", logLevel: "DEBUG", findOnPath: nowhere });
    expect(launch).toEqual({ command: "/venv/bin/complex-edit", args: ["lsp", "--log-level", "DEBUG"], cwd: undefined, source: "setting" });
  });

  it("expands ~, ${workspaceFolder} and workspace-relative paths", () => {
    const base = { logLevel: undefined, findOnPath: nowhere, home: "/home/me", workspaceFolder: "/work/proj" };
    expect(resolveLaunch({ ...base, configuredPath: "~/.venv/bin/complex-edit" }).command).toBe("/home/me/.venv/bin/complex-edit");
    expect(resolveLaunch({ ...base, configuredPath: "${workspaceFolder}/.venv/bin/complex-edit" }).command).toBe(
      "/work/proj/.venv/bin/complex-edit",
    );
    expect(resolveLaunch({ ...base, configuredPath: ".venv/bin/complex-edit" }).command).toBe("/work/proj/.venv/bin/complex-edit");
  });

  it("runs the selected interpreter's own complex-edit script when PATH has none", () => {
    const scripts = new Set(["/proj/.venv/bin/complex-edit"]);
    const launch = resolveLaunch({
      configuredPath: "",
      logLevel: "INFO",
      findOnPath: nowhere,
      findInDirectory: (dir, name) => (scripts.has(`${dir}/${name}`) ? `${dir}/${name}` : undefined),
      interpreter: ["/proj/.venv/bin/python"],
      workspaceFolder: "/proj",
      neutralDirectory: "/ext",
    });
    expect(launch).toEqual({ command: "/proj/.venv/bin/complex-edit", args: ["lsp", "--log-level", "INFO"], cwd: "/proj", source: "interpreter" });
  });

  it("finds the script in Scripts\\ on Windows", () => {
    const seen: string[] = [];
    const launch = resolveLaunch({
      configuredPath: "",
      logLevel: "INFO",
      findOnPath: nowhere,
      findInDirectory: (dir, name) => {
        seen.push(dir);
        return dir.endsWith("Scripts") ? `${dir}\\${name}.exe` : undefined;
      },
      interpreter: ["C:\\Python312\\python.exe"],
      platform: "win32",
    });
    expect(seen).toEqual(["C:\\Python312", "C:\\Python312\\Scripts"]);
    expect(launch.command).toBe("C:\\Python312\\Scripts\\complex-edit.exe");
  });

  it("falls back to python -P -m complex_edit outside the workspace, so no module of the workspace is imported", () => {
    const launch = resolveLaunch({
      configuredPath: "",
      logLevel: "bogus",
      findOnPath: nowhere,
      findInDirectory: nowhere,
      interpreter: ["/py/bin/python"],
      workspaceFolder: "/proj",
      neutralDirectory: "/ext",
    });
    expect(launch).toEqual({
      command: "/py/bin/python",
      args: ["-P", "-m", "complex_edit", "lsp", "--log-level", "INFO"],
      cwd: "/ext",
      source: "interpreter",
    });
    // Never the workspace, and never -I (it would drop PYTHONPATH and the user site).
    expect(launch.cwd).not.toBe("/proj");
    expect(launch.args).not.toContain("-I");
  });

  it("keeps the interpreter's own arguments (conda run and friends), -P after them", () => {
    const launch = resolveLaunch({
      configuredPath: undefined,
      logLevel: "INFO",
      findOnPath: nowhere,
      findInDirectory: () => "/somewhere/complex-edit",
      interpreter: ["conda", "run", "-n", "x", "python"],
      workspaceFolder: "/proj",
      neutralDirectory: "/ext",
    });
    expect(launch.command).toBe("conda");
    expect(launch.args.slice(0, 7)).toEqual(["run", "-n", "x", "python", "-P", "-m", "complex_edit"]);
    expect(launch.cwd).toBe("/ext");
  });

  it("runs a configured path or PATH's complex-edit in the workspace folder (a console script ignores its cwd)", () => {
    const base = { logLevel: "INFO", workspaceFolder: "/proj", neutralDirectory: "/ext" };
    expect(resolveLaunch({ ...base, configuredPath: "/v/bin/complex-edit", findOnPath: nowhere }).cwd).toBe("/proj");
    expect(resolveLaunch({ ...base, configuredPath: "", findOnPath: () => "/usr/bin/complex-edit" }).cwd).toBe("/proj");
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
    expect(STORED_KEY_VARIABLE in env).toBe(false);
  });
  it("hands the stored key over in the server's own variable, which wins over the provider's", () => {
    const env = serverEnvironment({ GEMINI_API_KEY: "env", GOOGLE_API_KEY: "google" }, "stored");
    expect(env[STORED_KEY_VARIABLE]).toBe("stored");
    expect(STORED_KEY_VARIABLE).toBe("COMPLEX_EDIT_STORED_KEY");
    expect(env.GEMINI_API_KEY).toBe("env"); // the server decides; nothing of the environment is dropped
  });
  it("keeps the base URL variable the tests rely on", () => {
    expect(serverEnvironment({ GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:1" }, "k").GOOGLE_GEMINI_BASE_URL).toBe("http://127.0.0.1:1");
  });
});
