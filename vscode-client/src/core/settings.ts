/**
 * Maps the `complexEdit.*` VS Code settings to the server's settings schema (the LSP
 * `initializationOptions` and the `workspace/configuration` section `complexEdit`).
 *
 * Only values the user set explicitly are sent: a value left at its default stays unset, so the
 * server's own defaults and its `COMPLEX_EDIT_*` environment variables still apply.
 */

import { SETTING_NAMES, type Settings } from "./generated/protocol";

/** The server-side settings the extension exposes, by their schema names: every one the server has. */
export const SERVER_SETTINGS = SETTING_NAMES;

export type ServerSettingName = keyof Settings;
export type SettingValue = string | number | boolean | readonly string[];
export type ServerSettings = Partial<Record<ServerSettingName, SettingValue>>;

/** The part of `WorkspaceConfiguration.inspect()` the mapping reads. */
export interface Inspected {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The most specific value the user set (folder, then workspace, then user), if any. */
export function explicitValue(inspected: Inspected | undefined): unknown {
  if (inspected === undefined) {
    return undefined;
  }
  for (const value of [inspected.workspaceFolderValue, inspected.workspaceValue, inspected.globalValue]) {
    if (value !== undefined) {
      return value;
    }
  }
  return undefined;
}

function usable(value: unknown): value is SettingValue {
  if (Array.isArray(value)) {
    return value.every((item) => typeof item === "string");
  }
  if (typeof value === "string") {
    return value.trim() !== "";
  }
  if (typeof value === "number") {
    return Number.isFinite(value);
  }
  return typeof value === "boolean";
}

/**
 * The server settings from `inspect(name)` of each setting in the `complexEdit` section.
 * `null`, empty strings and unset values are left out; a list of strings is sent as it is.
 */
export function toServerSettings(inspect: (name: ServerSettingName) => Inspected | undefined): ServerSettings {
  const settings: ServerSettings = {};
  for (const name of SERVER_SETTINGS) {
    const value = explicitValue(inspect(name));
    if (usable(value)) {
      settings[name] = typeof value === "string" ? value.trim() : value;
    }
  }
  return settings;
}

/** Settings whose change needs a new server process (the others are re-read per command). */
export const RESTART_SETTINGS = ["complexEdit.server.path", "complexEdit.server.logLevel"] as const;
