#!/usr/bin/env bash
# End-to-end test of the extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3)
# driven by playwright-core and Debian's chromium. It installs what it needs when missing
# (Debian packages, a local ripgrep download cache, code-server and playwright-core under
# e2e/.cache/), packages and installs the .vsix, starts the Gemini emulator and code-server on
# 127.0.0.1, runs "Complex Edit: Edit with Instruction…" from the command palette and checks
# the saved file. Screenshot: artifacts/vscode-e2e.png at the repository root.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
CLIENT="$(dirname "$HERE")"
REPO="$(dirname "$CLIENT")"
CACHE="${E2E_CACHE_DIR:-$HERE/.cache}"
ARTIFACTS="$REPO/artifacts"
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.55.0
RIPGREP_CACHE_NAME=vscode-ripgrep-cache-1.15.11
RIPGREP_TARBALL=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
APT_PACKAGES=(build-essential pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep chromium)
PYTHON="${PYTHON:-$REPO/.venv/bin/python}"
SERVER_EXE="${COMPLEX_EDIT_EXE:-$REPO/.venv/bin/complex-edit}"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

started=$(date +%s)
step() { echo "== e2e [$(( $(date +%s) - started ))s] $*"; }

for needed in "$PYTHON" "$SERVER_EXE"; do
  if [[ ! -x "$needed" ]]; then
    echo "e2e: $needed is missing; install the project first (python3 -m venv .venv && .venv/bin/pip install -e '.[dev]')" >&2
    exit 2
  fi
done

# 1. Debian packages (code-server's install script builds native modules; chromium drives it).
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if (( ${#missing[@]} > 0 )); then
  step "apt-get install ${missing[*]}"
  SUDO=""; [[ "$(id -u)" != 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. The ripgrep "download cache" @vscode/ripgrep's installer uses instead of the network.
TMP_ROOT="$(node -p 'require("os").tmpdir()')"
if [[ ! -s "$TMP_ROOT/$RIPGREP_CACHE_NAME/$RIPGREP_TARBALL" ]]; then
  step "ripgrep cache from Debian's rg"
  mkdir -p "$TMP_ROOT/$RIPGREP_CACHE_NAME"
  rg_dir="$(mktemp -d)"
  cp "$(command -v rg)" "$rg_dir/rg"
  tar -czf "$TMP_ROOT/$RIPGREP_CACHE_NAME/$RIPGREP_TARBALL" -C "$rg_dir" rg
  rm -rf "$rg_dir"
fi

# 3. code-server and playwright-core, cached under e2e/.cache/.
installed_version="$(node -p "try { require('$CACHE/node_modules/code-server/package.json').version } catch { '' }")"
if [[ "$installed_version" != "$CODE_SERVER_VERSION" || ! -d "$CACHE/node_modules/playwright-core" || ! -d "$CACHE/node_modules/code-server/lib/vscode/node_modules" ]]; then
  step "npm install code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_VERSION (several minutes)"
  mkdir -p "$CACHE"
  echo '{"name": "complex-edit-e2e-cache", "private": true}' > "$CACHE/package.json"
  (cd "$CACHE" && npm_config_yes=true npm_config_unsafe_perm=true \
    npm install --no-save --loglevel=error "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION")
fi
CODE_SERVER="$CACHE/node_modules/code-server/out/node/entry.js"

# 4. The extension, packaged from the current sources.
step "package the .vsix"
(
  cd "$CLIENT"
  [[ -d node_modules ]] || npm ci --no-audit --no-fund --ignore-scripts
  rm -f dist/complex-edit.vsix
  npx --no-install vsce package --no-dependencies --allow-missing-repository --skip-license --out dist/complex-edit.vsix </dev/null >/dev/null
)

# 5. A scratch VS Code profile and workspace.
WORK="$(mktemp -d "${TMP_ROOT}/complex-edit-e2e.XXXXXX")"
PIDS=()
cleanup() {
  local status=$?
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if (( status != 0 )); then
    echo "e2e: FAILED; logs in $WORK (code-server.log, emulator.log, requests.jsonl)" >&2
    tail -n 40 "$WORK/code-server.log" >&2 2>/dev/null || true
  elif [[ -z "${KEEP_E2E_WORK:-}" ]]; then
    rm -rf "$WORK"
  fi
  exit $status
}
trap cleanup EXIT
mkdir -p "$REPO/docs/images" "$WORK/user-data/User" "$WORK/extensions" "$WORK/workspace/.vscode" "$WORK/xdg-config" "$WORK/xdg-data" "$ARTIFACTS"
cat > "$WORK/user-data/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": false,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "chat.commandCenter.enabled": false,
  "files.autoSave": "off",
  "window.restoreWindows": "none"
}
JSON
cat > "$WORK/workspace/.vscode/settings.json" <<JSON
{
  "complexEdit.server.path": "$SERVER_EXE",
  "complexEdit.server.logLevel": "DEBUG",
  "complexEdit.maxTurns": 3,
  "complexEdit.model": "gemini-3.5-flash-lite",
  "complexEdit.temperature": 0.25,
  "complexEdit.checkers": "off"
}
JSON
printf "def greet(name):\n    return 'Hello, ' + name\n\n\nprint(greet('world'))\n" > "$WORK/workspace/greet.py"
printf "def greet(name):\n    return f'Hello, {name}!'\n\n\nprint(greet('world'))\n" > "$WORK/expected.py"
printf "def welcome(name):\n    return f'Hello, {name}!'\n\n\nprint(welcome('world'))\n" > "$WORK/expected-preview.py"
printf "def welcome(name):\n    \"\"\"Return a greeting for name.\"\"\"\n    return f'Hello, {name}!'\n\n\nprint(welcome('world'))\n" > "$WORK/expected-tool.py"
# Edit with Review proposes two changes (the signature, the printed name); the test keeps the first.
printf "def welcome(name: str) -> str:\n    \"\"\"Return a greeting for name.\"\"\"\n    return f'HELLO, {name}!'\n\n\nprint(welcome('world'))\n" > "$WORK/expected-review.py"
# The live preview: turn 1 changes the greeting, turn 2 (8 s later) the printed name.
printf "def welcome(name: str) -> str:\n    \"\"\"Return a greeting for name.\"\"\"\n    return f'Good day, {name}!'\n\n\nprint(welcome('everyone'))\n" > "$WORK/expected-live.py"

# An edit across four files (issue 39): wrapping.py and helptext.py (not ASCII) open, the others not.
mkdir -p "$WORK/workspace/pkg"
printf "def wrap_text(text, width):\n    return [text[i:i + width] for i in range(0, len(text), width)]\n" > "$WORK/workspace/pkg/wrapping.py"
printf "from .wrapping import wrap_text  # by Peter \u00c5strand \U0001f389\n\nHELP = wrap_text('usage', 20)\n" > "$WORK/workspace/pkg/helptext.py"
printf "from .wrapping import wrap_text\n\n__all__ = ['wrap_text']\n" > "$WORK/workspace/pkg/__init__.py"
printf "from .wrapping import wrap_text\r\n\r\n\tprint(wrap_text('cli', 10))\r\n" > "$WORK/workspace/pkg/cli.py"

export XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data"
# A test-only extension that calls the language-model tool as an outer agent would.
(cd "$HERE/tool-invoker" && "$CLIENT/node_modules/.bin/vsce" package --no-dependencies --allow-missing-repository \
  --skip-license --out "$WORK/tool-invoker.vsix" </dev/null >/dev/null)
step "code-server --install-extension"
node "$CODE_SERVER" --user-data-dir "$WORK/user-data" --extensions-dir "$WORK/extensions" \
  --install-extension "$CLIENT/dist/complex-edit.vsix" --install-extension "$WORK/tool-invoker.vsix" \
  >"$WORK/install-extension.log" 2>&1 || { cat "$WORK/install-extension.log" >&2; exit 1; }

# 6. The Gemini emulator: it prints its base URL on its first stdout line.
step "start the Gemini emulator"
coproc EMULATOR { cd "$REPO" && exec "$PYTHON" -m tests.fakes.gemini_emulator --port 0 \
  --script "$HERE/gemini-script.json" --record "$WORK/requests.jsonl" 2>"$WORK/emulator.log"; }
PIDS+=("$EMULATOR_PID")
read -r -t 30 BASE_URL <&"${EMULATOR[0]}" || { echo "e2e: the emulator printed no URL" >&2; exit 1; }
echo "   emulator at $BASE_URL"

# 7. code-server on a free loopback port; the extension host inherits the key and base URL.
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
step "start code-server on 127.0.0.1:$PORT"
TOOL_INPUT='{"file": "greet.py", "instruction": "add a docstring to welcome", "startLine": 1, "endLine": 2}'
GEMINI_API_KEY=test-key GOOGLE_GEMINI_BASE_URL="$BASE_URL" \
E2E_TOOL_INPUT="$TOOL_INPUT" E2E_TOOL_RESULT="$WORK/tool-result.json" \
  node "$CODE_SERVER" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry \
  --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$WORK/user-data" --extensions-dir "$WORK/extensions" \
  "$WORK/workspace" >"$WORK/code-server.log" 2>&1 &
PIDS+=("$!")
node -e '
  const url = process.argv[1];
  const deadline = Date.now() + 60000;
  const poll = () => fetch(url).then((r) => { if (!r.ok) throw new Error(String(r.status)); })
    .catch((e) => { if (Date.now() > deadline) { console.error("e2e: code-server did not come up: " + e); process.exit(1); } return new Promise((r) => setTimeout(r, 300)).then(poll); });
  poll();' "http://127.0.0.1:$PORT/healthz"

# 8. Drive it.
step "run the palette command in chromium"
E2E_URL="http://127.0.0.1:$PORT/?folder=$WORK/workspace" \
E2E_FILE="$WORK/workspace/greet.py" \
E2E_EXPECTED="$WORK/expected.py" \
E2E_EXPECTED_PREVIEW="$WORK/expected-preview.py" \
E2E_EXPECTED_TOOL="$WORK/expected-tool.py" \
E2E_EXPECTED_REVIEW="$WORK/expected-review.py" \
E2E_REVIEW_SCREENSHOT="$REPO/docs/images/vscode-review.png" \
E2E_EXPECTED_LIVE="$WORK/expected-live.py" \
E2E_LIVE_PREVIEW_SCREENSHOT="$REPO/docs/images/vscode-live-preview.png" \
E2E_TOOL_RESULT="$WORK/tool-result.json" \
E2E_SCREENSHOT="$ARTIFACTS/vscode-e2e.png" \
E2E_REQUESTS="$WORK/requests.jsonl" \
E2E_USER_DATA="$WORK/user-data" \
E2E_WORKSPACE="$WORK/workspace" \
E2E_CACHE="$CACHE" \
  node "$HERE/vscode-e2e.mjs"
step "passed"
