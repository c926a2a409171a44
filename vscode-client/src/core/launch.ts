/**
 * Where the server comes from: the `complexEdit.server.path` setting, PATH, or a Python.
 *
 * A Python fallback never imports from the user's folder: `python -m` puts its working directory
 * first on `sys.path`, so a workspace holding `server.py` or `complex_edit/` would replace the
 * server. It prefers the interpreter's own `complex-edit` script, else runs `python -P -m
 * complex_edit` (-P: no working directory on `sys.path`; not -I, which would also drop
 * PYTHONPATH and the user site, where `pip install --user` puts the server) in a directory that
 * holds none of the user's modules.
 */

export const DEFAULT_EXECUTABLE = "complex-edit";
export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;

export interface Launch {
  command: string;
  args: string[];
  /**
   * The working directory: the workspace folder, except for `python -m`, which runs in
   * `LaunchInput.neutralDirectory` (a relative PYTHONPATH entry must not find the user's modules).
   */
  cwd: string | undefined;
  /** Where the command came from, for the log. */
  source: "setting" | "path" | "interpreter";
}

export interface LaunchInput {
  /** The `complexEdit.server.path` setting. */
  configuredPath: string | undefined;
  logLevel: string | undefined;
  /** The first workspace folder's path, for relative paths and `${workspaceFolder}`. */
  workspaceFolder?: string;
  home?: string;
  /** Finds a bare command name on PATH. */
  findOnPath: (name: string) => string | undefined;
  /** The selected Python interpreter (its command line), when one is known. */
  interpreter?: readonly string[];
  /** Finds an executable `name` in one directory (the interpreter's own scripts). */
  findInDirectory?: (directory: string, name: string) => string | undefined;
  /** A directory holding no module of the user's (the extension's own), for `python -m`. */
  neutralDirectory?: string;
  platform?: string;
}

export class LaunchError extends Error {}

function isBareName(path: string): boolean {
  return !path.includes("/") && !path.includes("\\");
}

function expand(path: string, input: LaunchInput): string {
  let out = path;
  if (input.workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, input.workspaceFolder);
  }
  if (input.home !== undefined && (out === "~" || out.startsWith("~/"))) {
    out = input.home + out.slice(1);
  }
  const absolute = out.startsWith("/") || /^[A-Za-z]:[\\/]/.test(out) || out.startsWith("\\\\");
  if (!absolute && !isBareName(out) && input.workspaceFolder !== undefined) {
    out = `${input.workspaceFolder.replace(/[\\/]+$/, "")}/${out}`;
  }
  return out;
}

function serverArgs(logLevel: string | undefined): string[] {
  const level = (LOG_LEVELS as readonly string[]).includes(logLevel ?? "") ? (logLevel as string) : "INFO";
  return ["lsp", "--log-level", level];
}

/** The directories where an interpreter's `pip install` puts `complex-edit`: beside it, and `Scripts\` on Windows. */
function scriptDirectories(python: string, platform: string | undefined): string[] {
  const cut = Math.max(python.lastIndexOf("/"), platform === "win32" ? python.lastIndexOf("\\") : -1);
  if (cut < 0) {
    return [];
  }
  const directory = python.slice(0, cut) || "/";
  return platform === "win32" ? [directory, `${directory}\\Scripts`] : [directory];
}

function interpreterLaunch(interpreter: readonly string[], args: string[], input: LaunchInput): Launch {
  const [python, ...pythonArgs] = interpreter as [string, ...string[]];
  if (pythonArgs.length === 0) {
    for (const directory of scriptDirectories(python, input.platform)) {
      const script = input.findInDirectory?.(directory, DEFAULT_EXECUTABLE);
      if (script !== undefined) {
        return { command: script, args, cwd: input.workspaceFolder, source: "interpreter" };
      }
    }
  }
  return {
    command: python,
    args: [...pythonArgs, "-P", "-m", "complex_edit", ...args],
    cwd: input.neutralDirectory,
    source: "interpreter",
  };
}

export function resolveLaunch(input: LaunchInput): Launch {
  const configured = (input.configuredPath ?? "").trim() || DEFAULT_EXECUTABLE;
  const args = serverArgs(input.logLevel);
  const cwd = input.workspaceFolder;
  if (!isBareName(configured) || configured.startsWith("~") || configured.includes("${")) {
    return { command: expand(configured, input), args, cwd, source: "setting" };
  }
  const found = input.findOnPath(configured);
  if (found !== undefined) {
    return { command: found, args, cwd, source: configured === DEFAULT_EXECUTABLE ? "path" : "setting" };
  }
  if (configured === DEFAULT_EXECUTABLE && input.interpreter !== undefined && input.interpreter.length > 0) {
    return interpreterLaunch(input.interpreter, args, input);
  }
  throw new LaunchError(
    `Cannot find '${configured}' on PATH. Install the server (pip install -e . in the complex-edit ` +
      "repository) and set complexEdit.server.path to the complex-edit executable, or select a " +
      "Python interpreter that has it installed.",
  );
}

/**
 * Finds `name` in the directories of `pathValue`, the way a shell would. `isExecutable` checks
 * one candidate file; on Windows each PATHEXT extension is tried.
 */
export function findOnPath(
  name: string,
  pathValue: string | undefined,
  isExecutable: (candidate: string) => boolean,
  platform: string = "linux",
  pathExt: string | undefined = undefined,
): string | undefined {
  const windows = platform === "win32";
  const separator = windows ? ";" : ":";
  const extensions = windows ? ["", ...(pathExt ?? ".EXE;.CMD;.BAT;.COM").split(";").filter(Boolean)] : [""];
  for (const dir of (pathValue ?? "").split(separator)) {
    if (dir === "") {
      continue;
    }
    for (const ext of extensions) {
      const candidate = `${dir.replace(/[\\/]+$/, "")}${windows ? "\\" : "/"}${name}${ext}`;
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** Where the server takes a key an editor stored: it wins over the provider's own variables. */
export const STORED_KEY_VARIABLE = "COMPLEX_EDIT_STORED_KEY";

/**
 * The server's environment: the extension host's, plus the key from VS Code's secret storage
 * when one is stored (which variables the provider reads, and in what order, is the server's
 * business: `complex-edit doctor` shows the key in use).
 */
export function serverEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  apiKey: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  if (apiKey !== undefined && apiKey !== "") {
    env[STORED_KEY_VARIABLE] = apiKey;
  }
  env.PYTHONUNBUFFERED = "1";
  env.PYTHONIOENCODING = "utf-8";
  return env;
}
