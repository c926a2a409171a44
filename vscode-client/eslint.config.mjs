// ESLint flat config: typescript-eslint's type-aware recommended rules for the extension.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "e2e/**", "scripts/**", "*.mjs", "*.mts"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      eqeqeq: "error",
    },
  },
  {
    // Generated from docs/protocol.schema.json (json-schema-to-typescript writes
    // `unknown | undefined` for open objects): not ours to restyle.
    files: ["src/core/generated/**/*.ts"],
    rules: { "@typescript-eslint/no-redundant-type-constituents": "off" },
  },
  {
    // The pure modules are tested without VS Code: they must not import it.
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "vscode", message: "src/core must stay free of VS Code (unit-tested in Node)." }],
          patterns: ["vscode-languageclient*", "../*"] },
      ],
    },
  },
);
