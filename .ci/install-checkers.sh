#!/usr/bin/env bash
# The TypeScript checker the tests of Checks use (tests/session/test_checks_typescript.py), from
# npm, pinned, into .cache/checkers/ (gitignored; CHECKERS_CACHE_DIR elsewhere). On Node 20:
# typescript-language-server 6.x needs Node >= 22.22 and TypeScript 7 ships no tsserver
# (TECH_NOTES "Language servers as checkers"). Does nothing when they are there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/npm-cache.sh checkers "${CHECKERS_CACHE_DIR:-$PWD/.cache/checkers}" \
  typescript-language-server@5.3.0 typescript@5.9.3
