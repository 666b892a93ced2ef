#!/usr/bin/env bash
# Run the training recipe's data tests (training/tests: the split keeps every
# held-out item out of training, the synthetic names avoid the example's) in
# a venv of pinned pytest under the cache, so make test needs nothing
# installed by hand and never torch.
#   scripts/training-tests.sh [pytest args]
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge
VENV=$CACHE/test-venv
REQ=$REPO/training/tests/requirements.txt

log() { echo "training-tests.sh: $*" >&2; }

stamp=$(sha256sum "$REQ" | cut -c1-64)
if [[ ! -x $VENV/bin/python || $(cat "$VENV/.requirements" 2>/dev/null) != "$stamp" ]]; then
  log "installing pytest into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-cache-dir -r "$REQ"
  echo "$stamp" >"$VENV/.requirements"
fi
cd "$REPO"
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider training/tests "$@"
