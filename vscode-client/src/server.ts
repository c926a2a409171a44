/** Starts and restarts `complex-edit lsp`, and sends it `performComplexEdit`. */

import * as fs from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import {
  type ConfigurationParams,
  ErrorCodes,
  ExecuteCommandRequest,
  type LanguageClientOptions,
  ResponseError,
  State,
} from "vscode-languageclient";
import { LanguageClient, type ServerOptions } from "vscode-languageclient/node";
import { type ArgumentInput, buildArguments } from "./core/arguments";
import { DOCTOR_COMMAND } from "./core/doctorReport";
import { type Launch, LaunchError, findOnPath, resolveLaunch, serverEnvironment } from "./core/launch";
import { COMMAND, type EditResult, REQUEST_CANCELLED, REVIEW_COMMAND, asEditResult, isDocumentNotOpen } from "./core/protocol";
import { errorCode } from "./core/render";
import { RunLog } from "./core/runLog";
import { RESTART_SETTINGS } from "./core/settings";
import { LiveDiffView } from "./liveDiff";
import { LivePreview, LivePreviewFeature } from "./livePreview";
import { NotificationProgressFeature } from "./progress";
import { SECTION, launchSettings, serverSettings } from "./settings";

export const API_KEY_SECRET = "complexEdit.geminiApiKey";
/** Tries of a command on a document the server has not seen opened yet. */
const NOT_OPEN_RETRIES = 5;

export interface EditRequest extends Omit<ArgumentInput, "uri"> {
  document: vscode.Uri;
}

function isExecutable(candidate: string): boolean {
  try {
    fs.accessSync(candidate, process.platform === "win32" ? fs.constants.F_OK : fs.constants.X_OK);
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

/** The selected Python interpreter: the Python extension's, else `python.defaultInterpreterPath` if set. */
async function pythonInterpreter(): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<unknown>("ms-python.python");
  if (extension !== undefined) {
    try {
      const api = (extension.isActive ? extension.exports : await extension.activate()) as {
        settings?: { getExecutionDetails?: (resource?: vscode.Uri) => { execCommand?: string[] } };
      };
      const command = api.settings?.getExecutionDetails?.(vscode.workspace.workspaceFolders?.[0]?.uri).execCommand;
      if (command !== undefined && command.length > 0) {
        return command;
      }
    } catch {
      // fall through to the setting
    }
  }
  const inspected = vscode.workspace.getConfiguration("python").inspect<string>("defaultInterpreterPath");
  const explicit = inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
  return explicit !== undefined && explicit.trim() !== "" ? [explicit] : undefined;
}

export class ComplexEditServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient> | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly running = new Set<vscode.CancellationTokenSource>();
  private readonly runLog: RunLog;
  /** Show Live Diff: follows the previews the live preview receives. */
  readonly liveDiff = new LiveDiffView();
  private readonly livePreview = new LivePreview(this.liveDiff);
  /** The stored key the running server was given (undefined: none, it uses the environment). */
  private keyInUse: string | undefined;
  private keyCheck: Promise<void> = Promise.resolve();
  /** The command line of the last server started, for the report. */
  launched: string | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    readonly output: vscode.OutputChannel,
    private readonly traceOutput: vscode.OutputChannel,
    /** The extension's own folder: no module of the user's, so a `python -m` fallback runs there. */
    private readonly extensionPath: string,
  ) {
    this.runLog = new RunLog((line) => this.output.appendLine(line));
    this.disposables.push(
      this.livePreview,
      this.liveDiff,
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (RESTART_SETTINGS.some((name) => event.affectsConfiguration(name))) {
          this.output.appendLine("[client] server settings changed: restarting the server");
          void this.restart().catch(() => undefined);
        }
      }),
      secrets.onDidChange((event) => {
        if (event.key === API_KEY_SECRET) {
          void this.keyChanged();
        }
      }),
    );
  }

  /**
   * Restarts the server when the stored key differs from the one it was given: after the
   * Set/Clear commands, or a key set in another window. Checks run one after another, so the
   * command and the secret storage's change event cause one restart, not two.
   */
  keyChanged(): Promise<void> {
    this.keyCheck = this.keyCheck.then(async () => {
      await this.starting?.catch(() => undefined);
      if (this.client === undefined || (await this.secrets.get(API_KEY_SECRET)) === this.keyInUse) {
        return;
      }
      this.output.appendLine("[client] the stored API key changed: restarting the server");
      await this.restart().catch((error: unknown) => {
        this.output.appendLine(`[client] the server did not restart: ${String(error)}`);
      });
    });
    return this.keyCheck;
  }

  /** The running client, starting the server first if needed. Throws LaunchError or the start error. */
  async ensureStarted(): Promise<LanguageClient> {
    const client = this.client;
    if (client !== undefined && client.state === State.Running) {
      return client;
    }
    if (client !== undefined && client.state === State.Starting && this.starting === undefined) {
      // The library is restarting it after a crash: wait for that start.
      try {
        await client.start();
        return client;
      } catch {
        // start a fresh one below
      }
    }
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async launch(): Promise<Launch> {
    const settings = launchSettings();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const input = {
      configuredPath: settings.path,
      logLevel: settings.logLevel,
      workspaceFolder: folder,
      home: os.homedir(),
      findOnPath: (name: string) => findOnPath(name, process.env.PATH, isExecutable, process.platform, process.env.PATHEXT),
      findInDirectory: (directory: string, name: string) =>
        findOnPath(name, directory, isExecutable, process.platform, process.env.PATHEXT),
      neutralDirectory: this.extensionPath,
      platform: process.platform,
    };
    let launch: Launch;
    try {
      launch = resolveLaunch(input);
    } catch (error) {
      // Not on PATH: ask for the selected Python interpreter only now (it may activate the
      // Python extension).
      const interpreter = error instanceof LaunchError ? await pythonInterpreter() : undefined;
      if (interpreter === undefined) {
        throw error;
      }
      launch = resolveLaunch({ ...input, interpreter });
    }
    if (launch.source === "setting" && !isExecutable(launch.command)) {
      throw new LaunchError(
        `complexEdit.server.path is '${settings.path ?? ""}', but ${launch.command} is not an executable file.`,
      );
    }
    return launch;
  }

  private async start(): Promise<LanguageClient> {
    await this.stopClient();
    const launch = await this.launch();
    const apiKey = await this.secrets.get(API_KEY_SECRET);
    this.keyInUse = apiKey;
    this.launched = [launch.command, ...launch.args].join(" ");
    this.output.appendLine(
      `[client] starting ${launch.command} ${launch.args.join(" ")} in ${launch.cwd ?? "the current directory"} (from ${launch.source}; API key from ${
        apiKey !== undefined ? "VS Code's secret storage" : "the environment"
      })`,
    );
    const serverOptions: ServerOptions = {
      command: launch.command,
      args: launch.args,
      // No `transport`: with TransportKind.stdio the library would append `--stdio`.
      options: {
        env: serverEnvironment(process.env, apiKey),
        cwd: launch.cwd,
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      outputChannel: this.output,
      traceOutputChannel: this.traceOutput,
      initializationOptions: { complexEdit: serverSettings() },
      middleware: {
        workspace: {
          configuration: async (params: ConfigurationParams, token, next) => {
            const defaults = await next(params, token);
            if (defaults instanceof ResponseError) {
              return defaults;
            }
            return params.items.map((item, index) =>
              item.section === SECTION
                ? serverSettings(item.scopeUri !== undefined ? vscode.Uri.parse(item.scopeUri) : undefined)
                : (defaults[index] as unknown),
            );
          },
        },
      },
    };
    const client = new LanguageClient("complexEdit", "Complex Edit", serverOptions, clientOptions);
    client.registerFeature(new NotificationProgressFeature(client, this.runLog));
    client.registerFeature(new LivePreviewFeature(client, this.livePreview));
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      throw error;
    }
    return client;
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (this.running.size > 0) {
      this.runLog.cancelRequested("a server restart", `${this.running.size} running edit(s)`);
    }
    for (const source of this.running) {
      source.cancel();
    }
    if (client !== undefined) {
      try {
        await client.dispose(2000);
      } catch (error) {
        this.output.appendLine(`[client] stopping the server failed: ${String(error)}`);
      }
    }
  }

  async restart(): Promise<LanguageClient> {
    await this.starting?.catch(() => undefined);
    this.starting = this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /**
   * Runs `performComplexEdit`. Cancelling `token` sends `$/cancelRequest`; the promise then
   * rejects with the server's RequestCancelled error.
   */
  /** The server's report (`complexEdit.doctor`) with this window's settings; starts the server if needed. */
  async doctor(document: vscode.Uri | undefined): Promise<unknown> {
    const client = await this.ensureStarted();
    const scope = document === undefined ? [] : [{ textDocument: { uri: client.code2ProtocolConverter.asUri(document) } }];
    return client.sendRequest(ExecuteCommandRequest.type, { command: DOCTOR_COMMAND, arguments: scope });
  }

  /** Lands the hunks `keep` of the server's proposal `proposalId` (none: drops it); its answer. */
  async applyReview(proposalId: string, keep: readonly number[]): Promise<EditResult> {
    const client = await this.ensureStarted();
    const answer: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
      command: REVIEW_COMMAND,
      arguments: [{ proposalId, keep }],
    });
    const result = asEditResult(answer);
    if (result === undefined) {
      throw new Error(`The server answered ${REVIEW_COMMAND} with something that is not a result: ${JSON.stringify(answer)}`);
    }
    return result;
  }

  async perform(request: EditRequest, token?: vscode.CancellationToken): Promise<EditResult> {
    const client = await this.ensureStarted();
    const what = request.document.path.split("/").pop() || request.document.toString();
    const source = new vscode.CancellationTokenSource();
    const cancel = (): void => {
      if (!source.token.isCancellationRequested) {
        this.runLog.cancelRequested("the caller", what);
        source.cancel();
      }
    };
    const link = token?.onCancellationRequested(cancel);
    if (token?.isCancellationRequested === true) {
      cancel();
    }
    this.running.add(source);
    this.livePreview.started(request.document);
    try {
      const args = buildArguments({ ...request, uri: client.code2ProtocolConverter.asUri(request.document) });
      for (let attempt = 0; ; attempt++) {
        try {
          const answer: unknown = await client.sendRequest(
            ExecuteCommandRequest.type,
            { command: COMMAND, arguments: [args] },
            source.token,
          );
          const result = asEditResult(answer);
          if (result === undefined) {
            throw new Error(`The server answered ${COMMAND} with something that is not a result: ${JSON.stringify(answer)}`);
          }
          if (!result.success && result.reason === "cancelled") {
            this.runLog.cancelled(what);
          }
          return result;
        } catch (error) {
          // A document opened a moment ago may not have reached the server yet.
          if (notOpenYet(error) && attempt < NOT_OPEN_RETRIES && !source.token.isCancellationRequested) {
            this.runLog.notOpenYet(what, attempt + 1, NOT_OPEN_RETRIES);
            await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
            continue;
          }
          if (errorCode(error) === REQUEST_CANCELLED) {
            this.runLog.cancelled(what);
          }
          throw error;
        }
      }
    } finally {
      this.livePreview.ended(request.document);
      link?.dispose();
      this.running.delete(source);
      source.dispose();
    }
  }

  isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    void this.stopClient();
  }

  async stop(): Promise<void> {
    await this.stopClient();
  }
}

function notOpenYet(error: unknown): boolean {
  return error instanceof ResponseError && isDocumentNotOpen(error.code, error.data);
}

export function isConnectionError(error: unknown): boolean {
  return error instanceof ResponseError && error.code === ErrorCodes.ConnectionInactive;
}
