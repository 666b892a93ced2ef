#!/usr/bin/env bash
# Build and run a local Temporal dev server for `kgforge worker` and
# `kgforge build --engine temporal` (docs/temporal.md).
#   scripts/temporal.sh {install|start|up|stop|status|env}
# The server is the `temporal` CLI's `server start-dev` (Temporal server,
# SQLite persistence, one process), built from its Go module: the SDK's own
# StartDevServer downloads a prebuilt binary, which fails offline. The
# binary, Go's downloads and the server's database live under $CACHE
# (outside the work tree), so CI caches one directory and a warm run only
# checks the binary's version.
set -euo pipefail

# v1.5.1 (server v1.29.1, Go 1.25): v1.9.1's go.mod replaces a nested module
# (cliext) that its module zip lacks, so it cannot be built from the proxy.
CLI_VERSION=v1.5.1
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge
BIN=$CACHE/temporal/bin/temporal
RUN=$CACHE/run
PIDF=$RUN/temporal.pid
LOGF=$RUN/temporal.log
DB=${KGFORGE_TEMPORAL_DB:-$CACHE/temporal/dev.db}
export TEMPORAL_ADDRESS=${TEMPORAL_ADDRESS:-127.0.0.1:7233}
HOST=${TEMPORAL_ADDRESS%:*}
PORT=${TEMPORAL_ADDRESS##*:}

log() { echo "temporal.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
contains() { [[ $1 == *"$2"* ]]; }

# One script at a time (two CI steps, or two helpers, starting it at once).
lock() { mkdir -p "$RUN"; exec 9>"$RUN/temporal.lock"; flock 9; }

# ---------------------------------------------------------------- install
binary_ok() { [[ -x $BIN ]] && contains "$("$BIN" --version 2>&1)" "temporal version ${CLI_VERSION#v}"; }

cmd_install() {
  if binary_ok; then log "temporal CLI $CLI_VERSION already built at $BIN"; return; fi
  command -v go >/dev/null || die "go is required to build the temporal CLI"
  # Keep Go's downloads and build cache under $CACHE; -modcacherw so rm -rf works.
  export GOMODCACHE=$CACHE/go/mod GOCACHE=$CACHE/go/build
  export GOFLAGS="${GOFLAGS:-} -modcacherw" GOTOOLCHAIN=${GOTOOLCHAIN:-local} CGO_ENABLED=0
  log "building temporal CLI $CLI_VERSION (pure Go, SQLite included); a cold build takes ~6 min on 2 cores"
  local t0=$SECONDS
  GOBIN=$(dirname "$BIN") go install -trimpath \
    -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=${CLI_VERSION#v}" \
    "github.com/temporalio/cli/cmd/temporal@$CLI_VERSION"
  binary_ok || die "built $BIN but it does not report version $CLI_VERSION"
  go clean -cache # only useful to retry a failed build
  log "built $BIN in $((SECONDS - t0))s ($(stat -c %s "$BIN") bytes)"
}

# ---------------------------------------------------------------- start / stop
answers() { contains "$("$BIN" operator cluster health --address "$TEMPORAL_ADDRESS" 2>&1)" SERVING; }

our_pid() { # pid from the pid file, if that process still is our temporal (pids get reused)
  local pid exe
  pid=$(cat "$PIDF" 2>/dev/null) || return 1
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
  [[ ${exe% (deleted)} == "$BIN" ]] && echo "$pid"
}

cmd_start() {
  [[ -x $BIN ]] || die "no temporal binary at $BIN; run: $0 install"
  if answers; then log "a Temporal server already answers at $TEMPORAL_ADDRESS; using it"; return; fi
  mkdir -p "$RUN" "$(dirname "$DB")"
  local pid t0
  t0=$(date +%s%N)
  if ! pid=$(our_pid); then
    [[ ! -f $LOGF ]] || mv -f "$LOGF" "$LOGF.1"
    # setsid+nohup: own session, so it outlives this script and CI step shells.
    # --db-filename: workflows survive a server restart; 9>&-: not the lock.
    setsid nohup "$BIN" server start-dev --ip "$HOST" --port "$PORT" --headless \
      --db-filename "$DB" --log-level warn >"$LOGF" 2>&1 </dev/null 9>&- &
    pid=$!
    echo "$pid" >"$PIDF"
    log "started temporal server start-dev (pid $pid, db $DB, log $LOGF)"
  else
    log "temporal (pid $pid) from an earlier start is still starting; waiting for it"
  fi
  for _ in $(seq 1 120); do # bounded wait: 60 s
    if answers; then
      log "ready in $((($(date +%s%N) - t0) / 1000000)) ms at $TEMPORAL_ADDRESS (namespace default)"
      return
    fi
    if ! kill -0 "$pid" 2>/dev/null; then rm -f "$PIDF"; break; fi
    sleep 0.5
  done
  tail -n 30 "$LOGF" >&2 || true
  die "no Temporal server answers at $TEMPORAL_ADDRESS (see $LOGF)"
}

cmd_stop() {
  local pid
  if ! pid=$(our_pid); then
    if [[ -f $PIDF ]]; then log "removing stale pid file"; rm -f "$PIDF"; fi
    log "no server started by this script is running"
    return 0
  fi
  log "stopping temporal (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then log "still running after 20 s; sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$PIDF"
  log "stopped"
}

cmd_status() {
  local pid
  if pid=$(our_pid); then log "server started by this script: pid $pid, db $DB, log $LOGF"; fi
  [[ -x $BIN ]] || { log "no temporal binary at $BIN"; return 1; }
  if answers; then log "a Temporal server answers at $TEMPORAL_ADDRESS"; return 0; fi
  log "no Temporal server answers at $TEMPORAL_ADDRESS"
  return 1
}

cmd_env() { printf 'export TEMPORAL_ADDRESS=%q\n' "$TEMPORAL_ADDRESS"; }

case ${1:-} in
  install) lock; cmd_install ;;
  start) lock; cmd_start ;;
  up) lock; cmd_install; cmd_start ;;
  stop) lock; cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *) echo "usage: $0 {install|start|up|stop|status|env}" >&2; exit 2 ;;
esac
