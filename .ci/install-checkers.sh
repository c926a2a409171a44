#!/usr/bin/env bash
# The TypeScript checker the tests of Checks use (tests/session/test_checks_typescript.py), from
# npm, pinned, into .cache/checkers/ (gitignored; CHECKERS_CACHE_DIR elsewhere). On Node 20:
# typescript-language-server 6.x needs Node >= 22.22 and TypeScript 7 ships no tsserver
# (TECH_NOTES "Language servers as checkers"). Does nothing when they are there.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${CHECKERS_CACHE_DIR:-$PWD/.cache/checkers}"
PACKAGES=(typescript-language-server@5.3.0 typescript@5.9.3)
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

installed() {  # name@version → is that version in the cache?
  local name="${1%@*}" version="${1##*@}"
  [[ "$(node -p "try { require('$CACHE/node_modules/$name/package.json').version } catch { '' }")" == "$version" ]]
}
missing=()
for package in "${PACKAGES[@]}"; do installed "$package" || missing+=("$package"); done
if (( ${#missing[@]} == 0 )); then
  echo "checkers: ${PACKAGES[*]} already in $CACHE"
  exit 0
fi
mkdir -p "$CACHE"
[[ -f "$CACHE/package.json" ]] || echo '{"name": "complex-edit-checkers", "private": true}' > "$CACHE/package.json"
(cd "$CACHE" && npm install --no-save --loglevel=error "${PACKAGES[@]}")
echo "checkers: installed ${PACKAGES[*]} in $CACHE"
