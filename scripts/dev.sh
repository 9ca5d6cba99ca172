#!/usr/bin/env bash
# Sets up what is missing, builds the playground and serves it on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"
PORT="${PORT:-8080}"
echo "Hoist playground: http://127.0.0.1:$PORT/"
# Not minified: Trunk's HTML minifier rewrites the live-reload script's '{{__TRUNK_ADDRESS__}}'
# in double quotes, which `trunk serve` then no longer fills in, and the page's WebSocket to
# that placeholder fails every 5 s (issue 27; tests/e2e/dev-serve.mjs checks both).
exec trunk serve --release --minify false --address 127.0.0.1 --port "$PORT"
