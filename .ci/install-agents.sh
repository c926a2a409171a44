#!/usr/bin/env bash
# The agent CLIs the end-to-end tests tests/e2e/test_agents_*.py drive, from npm, pinned, into
# .cache/agents/ (gitignored; AGENTS_CACHE_DIR elsewhere). Does nothing when they are there.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${AGENTS_CACHE_DIR:-$PWD/.cache/agents}"
PACKAGES=(@google/gemini-cli@0.61.0 @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0)
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

installed() {  # name@version → is that version in the cache?
  local name="${1%@*}" version="${1##*@}"
  [[ "$(node -p "try { require('$CACHE/node_modules/$name/package.json').version } catch { '' }")" == "$version" ]]
}
missing=()
for package in "${PACKAGES[@]}"; do installed "$package" || missing+=("$package"); done
if (( ${#missing[@]} == 0 )); then
  echo "agents: ${PACKAGES[*]} already in $CACHE"
  exit 0
fi
mkdir -p "$CACHE"
[[ -f "$CACHE/package.json" ]] || echo '{"name": "complex-edit-agents", "private": true}' > "$CACHE/package.json"
(cd "$CACHE" && npm install --no-save --loglevel=error "${PACKAGES[@]}")
echo "agents: installed ${PACKAGES[*]} in $CACHE"
