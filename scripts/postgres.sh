#!/usr/bin/env bash
# Run a local PostgreSQL server for kgforge's tests: Debian's packaged
# binaries, a private data directory, TCP on a loopback address only, trust
# authentication, and a database kgforge_test. Not for real data: the server
# trusts every local connection and runs without fsync.
#   scripts/postgres.sh {install|start|up|stop|status|env|reset}
#   eval "$(scripts/postgres.sh env)"     # KGFORGE_TEST_PG_DSN
# Settings (environment):
#   KGFORGE_PG_PORT=55432             TCP port on 127.0.0.1
#   KGFORGE_PG_DATA=$CACHE/postgres/data   data directory (data-PORT for another port)
#   KGFORGE_PG_START_TIMEOUT=60       seconds `start` waits for readiness
# PostgreSQL refuses to run as root: run as root, the script runs the server
# as the `postgres` system user (created if missing) and gives it the data
# directory. That user cannot enter a private home such as /root, so a root
# run whose $CACHE lies there keeps the data in /var/lib/postgresql/kgforge
# instead (the postgres user's home) — `status` says where.
set -euo pipefail

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge
RUN=$CACHE/run
HOST=127.0.0.1
PORT=${KGFORGE_PG_PORT:-55432}
DB=kgforge_test
SUPERUSER=postgres                 # the database role initdb creates (not the OS user)
OS_USER=postgres                   # the OS user the server runs as when we are root
KGFORGE_PG_START_TIMEOUT=${KGFORGE_PG_START_TIMEOUT:-60}

log() { echo "postgres.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ $PORT =~ ^[0-9]+$ ]] || die "KGFORGE_PG_PORT must be a port number, got '$PORT'"

# A server on another port (e.g. a second instance for a test) gets its own
# data directory, so the two never get mixed up.
NAME=data; [[ $PORT == 55432 ]] || NAME=data-$PORT

as_root() { if ((EUID == 0)); then "$@"; else sudo "$@"; fi; }

# Runs a server-side command (initdb, pg_ctl) as the user that owns the data,
# from / (that user may not be allowed into the current directory).
as_server() { if ((EUID == 0)); then (cd / && runuser -u "$OS_USER" -- "$@"); else "$@"; fi; }

# The newest installed server's bin directory (Debian: /usr/lib/postgresql/N/bin).
pg_bin() {
  local d
  d=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/pg_ctl' 2>/dev/null | sort -V | tail -n 1)
  [[ -n $d ]] || return 1
  dirname "$d"
}

# The nearest existing ancestor of $1 (the directory itself if it exists).
existing_dir() { local d=$1; while [[ ! -e $d ]]; do d=$(dirname "$d"); done; echo "$d"; }

# The data directory: $KGFORGE_PG_DATA, or one under $CACHE, or — as root,
# when the postgres user cannot reach $CACHE — one in that user's home.
data_dir() {
  if [[ -n ${KGFORGE_PG_DATA:-} ]]; then echo "$KGFORGE_PG_DATA"; return; fi
  local d=$CACHE/postgres/$NAME
  if ((EUID == 0)) && id "$OS_USER" >/dev/null 2>&1 \
    && ! runuser -u "$OS_USER" -- test -x "$(existing_dir "$d")"; then
    d=/var/lib/postgresql/kgforge/$NAME
  fi
  echo "$d"
}
DATA=$(data_dir)
LOGF=$DATA/server.log    # inside the data directory: the server's user can write it

# One mutating command at a time (parallel CI steps, or a stop racing a start).
# The lock fd must not leak into the server, or it would hold the lock forever.
lock() {
  mkdir -p "$RUN"
  exec 9>>"$RUN/postgres.lock"
  flock -w 300 9 || die "could not lock $RUN/postgres.lock within 300 s"
}

# ---------------------------------------------------------------- probes
answers() {
  local bin; bin=$(pg_bin) || return 1
  "$bin/pg_isready" -q -h "$HOST" -p "$PORT" -t 3
}

# Pid of the server running on $DATA, if it is still that process (pids get
# reused): postmaster.pid's first line, whose command line names $DATA.
our_pid() {
  local pid
  [[ -f $DATA/postmaster.pid ]] && pid=$(head -n 1 "$DATA/postmaster.pid") && [[ $pid =~ ^[0-9]+$ ]] || return 1
  tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qxF -- "$DATA" || return 1
  echo "$pid"
}

psql_q() {
  local bin; bin=$(pg_bin)
  "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$HOST" -p "$PORT" -U "$SUPERUSER" -d postgres -tAc "$1"
}

# ---------------------------------------------------------------- install
cmd_install() {
  local bin
  if bin=$(pg_bin); then log "PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') already installed in $bin"; return; fi
  command -v apt-get >/dev/null || die "pg_ctl not found under /usr/lib/postgresql/*/bin and no apt-get to install it"
  log "installing postgresql (apt)"
  # Debian's package also creates (and may start) its own cluster "main" on
  # port 5432; this script does not use it.
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq postgresql >/dev/null
  bin=$(pg_bin) || die "apt-get installed postgresql but pg_ctl is not under /usr/lib/postgresql/*/bin"
  log "installed PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') in $bin"
}

# ---------------------------------------------------------------- start / stop
# As root: the postgres system user, owning the data directory.
server_user() {
  ((EUID == 0)) || return 0
  if ! id "$OS_USER" >/dev/null 2>&1; then
    log "creating system user $OS_USER"
    useradd --system --user-group --home-dir /var/lib/postgresql --no-create-home --shell /usr/sbin/nologin "$OS_USER"
  fi
  DATA=$(data_dir) LOGF=$DATA/server.log   # where the data lives may depend on that user
  runuser -u "$OS_USER" -- test -x "$(existing_dir "$DATA")" \
    || die "user $OS_USER cannot reach $DATA (a private parent directory?); set KGFORGE_PG_DATA to a path it can reach"
}

init_data() {
  local bin=$1
  [[ -f $DATA/PG_VERSION ]] && return
  [[ ! -e $DATA || -z $(ls -A "$DATA") ]] || die "$DATA exists, is not empty and is no PostgreSQL data directory"
  mkdir -p "$DATA"
  if ((EUID == 0)); then chown "$OS_USER:" "$DATA"; fi
  chmod 700 "$DATA"
  log "initialising $DATA"
  # trust: any local connection may log in as any role, which is why the
  # server listens on a loopback address only (see start).
  as_server "$bin/initdb" -D "$DATA" -U "$SUPERUSER" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null \
    || die "initdb failed for $DATA"
}

# Creates $DB if the server lacks it.
ensure_db() {
  local have
  have=$(psql_q "SELECT 1 FROM pg_database WHERE datname = '$DB'") \
    || die "cannot query the server at $HOST:$PORT as $SUPERUSER (not started by this script, and not trusting local connections?)"
  [[ $have == 1 ]] && return
  psql_q "CREATE DATABASE $DB" >/dev/null
  log "created database $DB"
}

cmd_start() {
  local bin pid t0
  t0=$(date +%s%N)
  bin=$(pg_bin) || die "PostgreSQL is not installed (run: $0 install)"
  if answers; then
    if pid=$(our_pid); then log "already running: $HOST:$PORT (pid $pid, data $DATA)"
    else log "a PostgreSQL server already answers at $HOST:$PORT, not started by this script; using it"; fi
    ensure_db
    return
  fi
  server_user
  init_data "$bin"
  [[ ! -f $LOGF ]] || as_server mv -f "$LOGF" "$LOGF.1"   # keep the previous run's log for post-mortems
  # No Unix socket (its default directory belongs to Debian's cluster), TCP on
  # loopback only; fsync off: a test server's data is disposable. pg_ctl -w
  # waits for readiness; the server runs in its own session and outlives us.
  log "starting PostgreSQL on $HOST:$PORT (data $DATA, log $LOGF)"
  if ! as_server "$bin/pg_ctl" start -D "$DATA" -l "$LOGF" -w -t "$KGFORGE_PG_START_TIMEOUT" -s \
    -o "-h $HOST -p $PORT -k '' -c fsync=off -c synchronous_commit=off -c full_page_writes=off" 9>&-; then
    log "---- tail of $LOGF"; tail -n 30 "$LOGF" >&2 || true
    die "server did not start within ${KGFORGE_PG_START_TIMEOUT}s (log: $LOGF)"
  fi
  local deadline=$((SECONDS + KGFORGE_PG_START_TIMEOUT))
  until answers; do
    ((SECONDS < deadline)) || { tail -n 30 "$LOGF" >&2 || true; die "server started but $HOST:$PORT does not answer"; }
    sleep 0.2
  done
  ensure_db
  log "ready in $(( ($(date +%s%N) - t0) / 1000000 )) ms: postgres://$SUPERUSER@$HOST:$PORT/$DB (pid $(our_pid || echo '?'))"
}

cmd_stop() {
  local bin pid
  if ! pid=$(our_pid); then
    if answers; then log "no server started by this script on $DATA; leaving whatever answers at $HOST:$PORT alone"
    else log "not running"; fi
    return 0
  fi
  bin=$(pg_bin) || die "PostgreSQL binaries are gone; kill pid $pid by hand"
  log "stopping PostgreSQL (pid $pid)"
  # fast: roll back open transactions and shut down cleanly (no recovery next time).
  as_server "$bin/pg_ctl" stop -D "$DATA" -m fast -w -t 60 -s || die "pg_ctl stop failed (log: $LOGF)"
  log "stopped"
}

# ---------------------------------------------------------------- status / env / reset
cmd_status() {
  local pid
  if pid=$(our_pid); then log "server started by this script: pid $pid, data $DATA, log $LOGF"; fi
  if answers; then log "PostgreSQL answers at $HOST:$PORT"; return 0; fi
  log "no PostgreSQL answers at $HOST:$PORT"
  return 1
}

cmd_env() {
  printf "export KGFORGE_TEST_PG_DSN='%s'\n" "postgres://$SUPERUSER@$HOST:$PORT/$DB?sslmode=disable"
}

cmd_reset() {
  cmd_stop
  [[ -e $DATA ]] || { log "no data dir $DATA; nothing to reset"; return; }
  # Guard the rm -rf against a mistyped KGFORGE_PG_DATA: it must be a data directory.
  local real; real=$(realpath "$DATA")
  [[ $real != / && $real != "$(realpath "$HOME")" ]] || die "refusing to delete $real"
  [[ -f $real/PG_VERSION || -z $(ls -A "$real") ]] || die "$real is no PostgreSQL data directory (no PG_VERSION); not deleting it"
  rm -rf "$real"
  log "deleted $real"
}

case ${1:-} in
  install) lock; cmd_install ;;
  start) lock; cmd_start ;;
  up) lock; cmd_install; cmd_start ;;
  stop) lock; cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  reset) lock; cmd_reset ;;
  *) echo "usage: $0 {install|start|up|stop|status|env|reset}" >&2; exit 2 ;;
esac
