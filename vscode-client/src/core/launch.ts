/** Where the server comes from: the `complexEdit.server.path` setting, PATH, or a Python. */

export const DEFAULT_EXECUTABLE = "complex-edit";
export const LOG_LEVELS = ["DEBUG", "INFO", "WARNING", "ERROR"] as const;

export interface Launch {
  command: string;
  args: string[];
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

export function resolveLaunch(input: LaunchInput): Launch {
  const configured = (input.configuredPath ?? "").trim() || DEFAULT_EXECUTABLE;
  const args = serverArgs(input.logLevel);
  if (!isBareName(configured) || configured.startsWith("~") || configured.includes("${")) {
    return { command: expand(configured, input), args, source: "setting" };
  }
  const found = input.findOnPath(configured);
  if (found !== undefined) {
    return { command: found, args, source: configured === DEFAULT_EXECUTABLE ? "path" : "setting" };
  }
  if (configured === DEFAULT_EXECUTABLE && input.interpreter !== undefined && input.interpreter.length > 0) {
    const [python, ...pythonArgs] = input.interpreter;
    return { command: python as string, args: [...pythonArgs, "-m", "complex_edit", ...args], source: "interpreter" };
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

/** Variables the SDK reads for the key; the stored key must win over them. */
const KEY_VARIABLES = ["GEMINI_API_KEY", "GOOGLE_API_KEY"] as const;

/**
 * The server's environment: the extension host's, plus the key from VS Code's secret storage
 * when one is stored (GOOGLE_API_KEY would win over GEMINI_API_KEY in the SDK, so it is
 * dropped then).
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
    for (const key of KEY_VARIABLES) {
      delete env[key];
    }
    env.GEMINI_API_KEY = apiKey;
  }
  env.PYTHONUNBUFFERED = "1";
  env.PYTHONIOENCODING = "utf-8";
  return env;
}
