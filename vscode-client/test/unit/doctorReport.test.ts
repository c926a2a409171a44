import { describe, expect, it } from "vitest";
import { DOCTOR_COMMAND, doctorLines } from "../../src/core/doctorReport";

const facts = { extensionVersion: "0.1.0", command: "/venv/bin/complex-edit lsp --log-level INFO" };

describe("doctorLines", () => {
  it("shows the server's checks as the server words them, after what only the client knows", () => {
    const report = {
      checks: [
        { level: "info", text: "Provider: p (default)", advice: [] },
        { level: "warn", text: "No API key: K is not set", advice: ["Set it.", "Or not."] },
        { level: "ok", text: "fine" },
      ],
    };
    expect(doctorLines(facts, report)).toEqual([
      "Complex Edit extension 0.1.0",
      "Server command: /venv/bin/complex-edit lsp --log-level INFO",
      "INFO  Provider: p (default)",
      "WARN  No API key: K is not set",
      "      Set it.",
      "      Or not.",
      "OK    fine",
      "1 problem(s): see WARN and ERROR above.",
    ]);
  });
  it("says the server is not running and points to the command line", () => {
    const lines = doctorLines({ ...facts, command: undefined }, undefined, "Cannot find 'complex-edit' on PATH.");
    expect(lines[1]).toBe("Server command: not resolved");
    expect(lines[2]).toBe("The server is not running (Cannot find 'complex-edit' on PATH.), so it cannot report what it would use.");
    expect(lines[3]).toContain("`complex-edit doctor`");
  });
  it("treats an answer without checks (an older server) as no report", () => {
    expect(doctorLines(facts, { success: false })[2]).toContain("The server is not running");
    expect(DOCTOR_COMMAND).toBe("complexEdit.doctor");
  });
});
