// Test-only: runs the complexEdit_editFile tool through VS Code's tool service (vscode.lm.invokeTool)
// with the input in $E2E_TOOL_INPUT, and writes what came back to $E2E_TOOL_RESULT.
const fs = require("node:fs");
const vscode = require("vscode");

const TOOL = "complexEdit_editFile";

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.commands.registerCommand("complexEditE2E.invokeTool", async () => {
      const out = process.env.E2E_TOOL_RESULT;
      const input = JSON.parse(process.env.E2E_TOOL_INPUT ?? "{}");
      const listed = vscode.lm.tools.find((tool) => tool.name === TOOL);
      let record;
      try {
        const source = new vscode.CancellationTokenSource();
        const result = await vscode.lm.invokeTool(TOOL, { input, toolInvocationToken: undefined }, source.token);
        const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : "")).join("");
        record = { listed: listed !== undefined, tags: listed?.tags ?? [], inputSchema: listed?.inputSchema, text };
      } catch (error) {
        record = { listed: listed !== undefined, error: String(error) };
      }
      fs.writeFileSync(out, JSON.stringify(record, null, 2));
    }),
  );
};

exports.deactivate = () => undefined;
