/** Reads the `complexEdit.*` configuration (the mapping itself lives in core/settings). */

import * as vscode from "vscode";
import { type ServerSettings, toServerSettings } from "./core/settings";

export const SECTION = "complexEdit";

/** The server settings the user set for `scope` (a document or folder URI), or for the window. */
export function serverSettings(scope?: vscode.Uri): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope ?? null);
  return toServerSettings((name) => config.inspect(name));
}

export interface ServerLaunchSettings {
  path: string | undefined;
  logLevel: string | undefined;
}

export function launchSettings(): ServerLaunchSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    path: config.get<string>("server.path"),
    logLevel: config.get<string>("server.logLevel"),
  };
}
