import { describe, expect, it } from "vitest";
import { explicitValue, type Inspected, SERVER_SETTINGS, toServerSettings } from "../../src/core/settings";
import manifest from "../../package.json";

describe("explicitValue", () => {
  it("prefers the folder, then the workspace, then the user value, and ignores defaults", () => {
    expect(explicitValue({ defaultValue: 8 })).toBeUndefined();
    expect(explicitValue({ defaultValue: 8, globalValue: 3 })).toBe(3);
    expect(explicitValue({ globalValue: 3, workspaceValue: 4 })).toBe(4);
    expect(explicitValue({ globalValue: 3, workspaceValue: 4, workspaceFolderValue: 5 })).toBe(5);
    expect(explicitValue(undefined)).toBeUndefined();
  });
});

describe("toServerSettings", () => {
  const from = (values: Record<string, Inspected>) => toServerSettings((name) => values[name]);

  it("sends complexEdit.review to the server's configuration answer once the user sets it", () => {
    expect(from({ review: { globalValue: true } })).toEqual({ review: true });
    expect(from({ review: { workspaceValue: false, globalValue: true } })).toEqual({ review: false });
    expect(from({ review: { defaultValue: false } })).toEqual({});
  });

  it("sends nothing when the user set nothing, so the server's defaults and env apply", () => {
    expect(from({ model: { defaultValue: "gemini-2.5-flash" }, maxTurns: { defaultValue: 8 } })).toEqual({});
  });

  it("maps explicitly set values under the server's names", () => {
    expect(
      from({
        model: { globalValue: "gemini-2.5-pro" },
        maxTurns: { workspaceValue: 12 },
        temperature: { globalValue: 0 },
        baseUrl: { workspaceValue: " http://127.0.0.1:9999 " },
        requestTimeoutSeconds: { globalValue: 30 },
        maxDocumentBytes: { globalValue: 5000 },
      }),
    ).toEqual({
      model: "gemini-2.5-pro",
      maxTurns: 12,
      temperature: 0,
      baseUrl: "http://127.0.0.1:9999",
      requestTimeoutSeconds: 30,
      maxDocumentBytes: 5000,
    });
  });

  it("sends validate and maxPromptBytes, as every setting of the server's schema", () => {
    expect(from({ validate: { globalValue: "off" }, maxPromptBytes: { workspaceValue: 2000 } })).toEqual({
      validate: "off",
      maxPromptBytes: 2000,
    });
  });

  it("sends a list of strings as it is (readExclude is one), and nothing for a list of anything else", () => {
    const lists = toServerSettings((name) =>
      name === "model" ? { globalValue: ["*.pem", ".env"] } : name === "baseUrl" ? { globalValue: [1, 2] } : undefined,
    );
    expect(lists).toEqual({ model: ["*.pem", ".env"] });
  });

  it("treats null and empty strings as unset", () => {
    expect(from({ temperature: { globalValue: null }, baseUrl: { globalValue: "" }, model: { globalValue: "  " } })).toEqual({});
  });

  it("never forwards the client-only settings", () => {
    const asked: string[] = [];
    toServerSettings((name) => {
      asked.push(name);
      return undefined;
    });
    expect(asked).not.toContain("server.path");
    expect(asked).not.toContain("trace.server");
  });

  it("covers every server setting the manifest declares, with a description", () => {
    const properties = manifest.contributes.configuration.properties as Record<string, { markdownDescription?: string }>;
    for (const name of SERVER_SETTINGS) {
      expect(properties[`complexEdit.${name}`]?.markdownDescription, name).toBeTruthy();
    }
    for (const name of ["model", "thinkingLevel", "thoughtSummaries", "maxTurns", "temperature", "requestTimeoutSeconds", "maxDocumentBytes", "baseUrl"]) {
      expect(SERVER_SETTINGS as readonly string[]).toContain(name);
    }
  });
});
