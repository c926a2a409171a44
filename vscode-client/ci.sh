#!/usr/bin/env bash
# CI for the VS Code extension, from a clean clone: install, type-check, lint, unit tests,
# bundle, package the .vsix offline and check its manifest. The end-to-end test in a real
# VS Code (code-server) is e2e/run.sh, run separately.
set -euo pipefail
cd "$(dirname "$0")"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

echo "== vscode-client: npm ci"
# --ignore-scripts: nothing here needs an install script (esbuild finds its platform package
# itself), and it keeps optional native builds (keytar, via vsce) off the CI path.
npm ci --no-audit --no-fund --ignore-scripts

echo "== vscode-client: generated protocol types (src/core/generated/protocol.ts) match docs/protocol.schema.json"
node scripts/generate-protocol.mjs --check

echo "== vscode-client: type-check (tsc --noEmit)"
npx --no-install tsc -p . --noEmit

echo "== vscode-client: lint (eslint + typescript-eslint)"
npx --no-install eslint --max-warnings 0 .

echo "== vscode-client: unit tests (vitest)"
npx --no-install vitest run

echo "== vscode-client: bundle (esbuild)"
npm run build

echo "== vscode-client: package the .vsix (vsce, offline)"
rm -f dist/complex-edit.vsix
npx --no-install vsce package --no-dependencies --allow-missing-repository --skip-license --out dist/complex-edit.vsix </dev/null

echo "== vscode-client: manifest check"
node scripts/check-manifest.mjs dist/complex-edit.vsix
