/**
 * The launch the extension computes when `complex-edit` is not on PATH, run for real: the
 * repository's venv Python starts the server in a workspace whose `server.py`, `server/` and
 * `complex_edit/` would replace it if imported (each leaves a marker and exits). Skipped when
 * the venv is missing (set COMPLEX_EDIT_PYTHON to another interpreter with complex-edit).
 */

import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Launch, findOnPath, resolveLaunch } from "../../src/core/launch";

const python = process.env.COMPLEX_EDIT_PYTHON ?? path.resolve(__dirname, "../../../.venv/bin/python");
const available = process.platform !== "win32" && fs.existsSync(python);
const START_TIMEOUT_MS = 60_000;

function isExecutable(candidate: string): boolean {
  try {
    fs.accessSync(candidate, fs.constants.X_OK);
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

function frame(message: unknown): string {
  const body = JSON.stringify(message);
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Starts `launch` as the extension would (its command, args and cwd) and answers its `initialize` reply. */
function initialize(launch: Launch, env: NodeJS.ProcessEnv, rootPath: string): Promise<Record<string, unknown>> {
  const child: ChildProcess = spawn(launch.command, launch.args, { cwd: launch.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = Buffer.alloc(0);
  let stderr = "";
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to initialize; stderr: ${stderr.slice(-2000)}`)), START_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`the server exited (${String(code)}) before answering; stderr: ${stderr.slice(-2000)}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout = Buffer.concat([stdout, chunk]);
      for (;;) {
        const headerEnd = stdout.indexOf("\r\n\r\n");
        const length = /Content-Length: (\d+)/i.exec(stdout.subarray(0, Math.max(headerEnd, 0)).toString());
        if (headerEnd < 0 || length === null || stdout.length < headerEnd + 4 + Number(length[1])) {
          return;
        }
        const body = stdout.subarray(headerEnd + 4, headerEnd + 4 + Number(length[1])).toString();
        stdout = stdout.subarray(headerEnd + 4 + Number(length[1]));
        const message = JSON.parse(body) as Record<string, unknown>;
        if (message.id === 1) {
          clearTimeout(timer);
          resolve(message);
        }
      }
    });
    const uri = `file://${rootPath}`;
    child.stdin?.write(
      frame({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { processId: process.pid, rootUri: uri, workspaceFolders: [{ uri, name: "workspace" }], capabilities: {} },
      }),
    );
  }).finally(() => {
    child.removeAllListeners("exit");
    child.stdin?.end(frame({ jsonrpc: "2.0", id: 2, method: "shutdown" }) + frame({ jsonrpc: "2.0", method: "exit" }));
    setTimeout(() => child.kill(), 2000).unref();
  });
}

describe.skipIf(!available)("the Python fallback, run for real in a workspace of decoys", () => {
  let root = "";
  let workspace = "";
  let markers = "";
  let wrapper = "";
  let neutral = "";

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "complex-edit-decoys-"));
    workspace = path.join(root, "workspace");
    markers = path.join(root, "markers");
    neutral = path.join(root, "extension");
    fs.mkdirSync(markers);
    fs.mkdirSync(neutral);
    for (const decoy of ["server.py", "server/__init__.py", "complex_edit/__init__.py", "complex_edit/__main__.py"]) {
      const file = path.join(workspace, decoy);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const marker = path.join(markers, decoy.replace(/\//g, "."));
      fs.writeFileSync(file, `open(${JSON.stringify(marker)}, 'w')\nraise SystemExit(97)\n`);
    }
    // An interpreter with no complex-edit script beside it: the fallback is `python -P -m`.
    wrapper = path.join(root, "bare", "bin", "python");
    fs.mkdirSync(path.dirname(wrapper), { recursive: true });
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(python)} "$@"\n`, { mode: 0o755 });
  });

  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  const launchFor = (interpreter: string): Launch =>
    resolveLaunch({
      configuredPath: "",
      logLevel: "INFO",
      workspaceFolder: workspace,
      findOnPath: () => undefined,
      findInDirectory: (directory, name) => findOnPath(name, directory, isExecutable),
      interpreter: [interpreter],
      neutralDirectory: neutral,
      platform: process.platform,
    });

  it(
    "python -P -m complex_edit answers initialize and imports nothing of the workspace, even with PYTHONPATH=.",
    async () => {
      const launch = launchFor(wrapper);
      expect(launch.command).toBe(wrapper);
      expect(launch.args.slice(0, 3)).toEqual(["-P", "-m", "complex_edit"]);
      expect(launch.cwd).toBe(neutral);
      const answer = await initialize(launch, { ...process.env, PYTHONPATH: "." }, workspace);
      expect((answer.result as { serverInfo: { name: string } }).serverInfo.name).toBe("complex-edit");
      expect(fs.readdirSync(markers)).toEqual([]);
    },
    START_TIMEOUT_MS + 5000,
  );

  it(
    "the interpreter's own complex-edit script answers initialize and imports nothing of the workspace",
    async () => {
      const launch = launchFor(python);
      expect(launch.command).toBe(path.join(path.dirname(python), "complex-edit"));
      expect(launch.cwd).toBe(workspace);
      const answer = await initialize(launch, process.env, workspace);
      expect((answer.result as { serverInfo: { name: string } }).serverInfo.name).toBe("complex-edit");
      expect(fs.readdirSync(markers)).toEqual([]);
    },
    START_TIMEOUT_MS + 5000,
  );
});
