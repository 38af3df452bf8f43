#!/usr/bin/env bash
# Run the Node client's tests against a running server: TABLETOP_TARGET=host:port.
# Installs the locked dependencies with `npm ci` only when node_modules is missing or
# package-lock.json changed since the last install, so repeated runs need no network.
set -euo pipefail
cd "$(dirname "$0")"

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "run-tests.sh: $tool is not installed" >&2; exit 127; }
done
: "${TABLETOP_TARGET:?set TABLETOP_TARGET=host:port of a running tabletop server}"

stamp=node_modules/.package-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
# under the lock tests/support/nodejs.py takes too: test workers may install at once
exec 9>.npm-ci.lock
flock 9
if [ ! -d node_modules ] || [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  npm ci --no-audit --no-fund --prefer-offline --loglevel=error
  echo "$want" > "$stamp"
fi
flock -u 9

exec node --test --test-reporter=spec --test-timeout="${TABLETOP_NODE_TEST_TIMEOUT_MS:-90000}" test/*.test.js
