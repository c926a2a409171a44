#!/usr/bin/env bash
# Pinned npm packages into a cache folder (a gitignored folder of the checkout), for the tests
# that drive them: `bash .ci/npm-cache.sh LABEL CACHE_DIR name@version...`. Does nothing when
# every version is there. Used by install-agents.sh and install-checkers.sh.
set -euo pipefail
LABEL="$1" CACHE="$2"
shift 2
PACKAGES=("$@")
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

installed() {  # name@version → is that version in the cache?
  local name="${1%@*}" version="${1##*@}"
  [[ "$(node -p "try { require('$CACHE/node_modules/$name/package.json').version } catch { '' }")" == "$version" ]]
}
missing=()
for package in "${PACKAGES[@]}"; do installed "$package" || missing+=("$package"); done
if (( ${#missing[@]} == 0 )); then
  echo "$LABEL: ${PACKAGES[*]} already in $CACHE"
  exit 0
fi
mkdir -p "$CACHE"
[[ -f "$CACHE/package.json" ]] || echo "{\"name\": \"complex-edit-$LABEL\", \"private\": true}" > "$CACHE/package.json"
(cd "$CACHE" && npm install --no-save --loglevel=error "${PACKAGES[@]}")
echo "$LABEL: installed ${PACKAGES[*]} in $CACHE"
