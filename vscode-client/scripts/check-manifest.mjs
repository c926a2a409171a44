// Checks a built .vsix: its package.json declares the commands, settings and the language-model
// tool, and it ships the bundle but no node_modules. Usage: node scripts/check-manifest.mjs [file.vsix]
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";

const file = process.argv[2] ?? "dist/complex-edit.vsix";

/** The entries of a zip file, read from its central directory. */
function readZip(buffer) {
  const eocd = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    const method = buffer.readUInt16LE(offset + 10);
    const compressed = buffer.readUInt32LE(offset + 20);
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    const local = buffer.readUInt32LE(offset + 42);
    const name = buffer.toString("utf8", offset + 46, offset + 46 + nameLength);
    entries.set(name, () => {
      const start = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
      const data = buffer.subarray(start, start + compressed);
      return method === 8 ? inflateRawSync(data) : data;
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const problems = [];
const expect = (condition, message) => {
  if (!condition) problems.push(message);
};

const entries = readZip(readFileSync(file));
const manifest = JSON.parse(entries.get("extension/package.json")().toString("utf8"));
const contributes = manifest.contributes ?? {};

const commands = new Map((contributes.commands ?? []).map((c) => [c.command, c]));
const edit = commands.get("complexEdit.editWithInstruction");
expect(edit !== undefined, "command complexEdit.editWithInstruction is not declared");
expect(
  edit && `${edit.category}: ${edit.title}` === "Complex Edit: Edit with Instruction…",
  `the palette title is '${edit?.category}: ${edit?.title}', not 'Complex Edit: Edit with Instruction…'`,
);
for (const id of ["complexEdit.preview", "complexEdit.setApiKey"]) {
  expect(commands.has(id), `command ${id} is not declared`);
}
expect(commands.get("complexEdit.preview")?.title === "Preview…", "the preview command's title is not 'Preview…'");
const review = commands.get("complexEdit.editWithReview");
expect(
  review && `${review.category}: ${review.title}` === "Complex Edit: Edit with Review…",
  `the review command's palette title is '${review?.category}: ${review?.title}', not 'Complex Edit: Edit with Review…'`,
);
expect(
  (contributes.menus?.["editor/context"] ?? []).some((m) => m.command === "complexEdit.editWithInstruction"),
  "Edit with Instruction… is not on the editor context menu",
);
expect(
  (contributes.keybindings ?? []).some((k) => k.command === "complexEdit.editWithInstruction"),
  "Edit with Instruction… has no keybinding",
);
expect(
  (contributes.keybindings ?? []).some((k) => k.command === "complexEdit.editAcrossFiles"),
  "Edit Across Files… has no keybinding",
);

const properties = contributes.configuration?.properties ?? {};
for (const name of ["server.path", "model", "maxTurns", "temperature", "requestTimeoutSeconds", "maxDocumentBytes", "baseUrl"]) {
  const property = properties[`complexEdit.${name}`];
  expect(property !== undefined, `setting complexEdit.${name} is not declared`);
  expect(property === undefined || property.description || property.markdownDescription, `setting complexEdit.${name} has no description`);
}
expect(properties["complexEdit.server.path"]?.default === "complex-edit", "complexEdit.server.path does not default to complex-edit");
expect(
  properties["complexEdit.review"]?.type === "boolean" && properties["complexEdit.review"]?.default === false,
  "complexEdit.review is not a boolean setting defaulting to false",
);

const tools = contributes.languageModelTools ?? [];
expect(tools.length === 1, `expected one language-model tool, found ${tools.length}`);
for (const tool of tools) {
  expect(!/^(copilot_|vscode_)/.test(tool.name), `tool name ${tool.name} uses a reserved prefix`);
  expect((tool.modelDescription ?? "").length > 200, `tool ${tool.name} has no useful modelDescription`);
  const schema = tool.inputSchema ?? {};
  expect(schema.type === "object", `tool ${tool.name}: inputSchema is not an object schema`);
  for (const field of ["file", "instruction", "startLine", "endLine"]) {
    expect(schema.properties?.[field] !== undefined, `tool ${tool.name}: inputSchema lacks '${field}'`);
  }
  expect(JSON.stringify(schema.required) === JSON.stringify(["file", "instruction"]), `tool ${tool.name}: required is not [file, instruction]`);
}

expect(/^\^1\.(9[5-9]|\d{3,})\./.test(manifest.engines?.vscode ?? ""), `engine range ${manifest.engines?.vscode} is not ^1.95 or newer`);
expect((manifest.activationEvents ?? []).length > 0, "no activation events");
expect(manifest.icon !== undefined && entries.has(`extension/${manifest.icon}`), "the icon is missing");
expect(entries.has("extension/readme.md"), "the README is missing");
expect(entries.has("extension/dist/extension.js"), "the bundle dist/extension.js is missing");
const stray = [...entries.keys()].filter((name) => name.includes("node_modules/") || name.startsWith("extension/src/"));
expect(stray.length === 0, `the .vsix ships files it should not: ${stray.slice(0, 5).join(", ")}`);

if (problems.length > 0) {
  console.error(`${file}: ${problems.length} problem(s)`);
  for (const problem of problems) console.error(`  - ${problem}`);
  process.exit(1);
}
console.log(`${file}: manifest OK (${commands.size} commands, ${Object.keys(properties).length} settings, tool ${tools[0].name}, ${entries.size} files)`);
