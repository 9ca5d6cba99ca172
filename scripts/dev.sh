#!/usr/bin/env bash
# Sets up what is missing, builds the playground and serves it on localhost.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"
PORT="${PORT:-8080}"
echo "Hoist playground: http://127.0.0.1:$PORT/"
exec trunk serve --release --address 127.0.0.1 --port "$PORT"
