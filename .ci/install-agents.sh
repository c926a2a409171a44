#!/usr/bin/env bash
# The agent CLIs the end-to-end tests tests/e2e/test_agents_*.py drive, from npm, pinned, into
# .cache/agents/ (gitignored; AGENTS_CACHE_DIR elsewhere). Does nothing when they are there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/npm-cache.sh agents "${AGENTS_CACHE_DIR:-$PWD/.cache/agents}" \
  @google/gemini-cli@0.61.0 @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0
