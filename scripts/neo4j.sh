#!/usr/bin/env bash
# Build and run a local Neo4j 5 Community server for kgforge: the embedded DBMS
# launcher in tools/neo4j-server, with Bolt on a loopback address and auth
# disabled. No Docker or Neo4j tarball needed, only Java 17+ and Maven (build).
#   scripts/neo4j.sh {build|start|stop|status|env|reset}
#   eval "$(scripts/neo4j.sh env)"     # NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD
# Settings (environment):
#   NEO4J_BOLT=127.0.0.1:7687       Bolt address; must be loopback (no auth)
#   NEO4J_DATA=$CACHE/neo4j/data    Neo4j home: store in data/, logs in logs/
#   NEO4J_HEAP=1g                   JVM -Xmx (page cache: 256m off-heap on top)
#   NEO4J_START_TIMEOUT=120         seconds `start` waits for readiness
# Everything built or downloaded lives under $CACHE (and Maven's ~/.m2), outside
# the work tree, so CI can cache it and warm runs only do quick checks.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=$ROOT/tools/neo4j-server
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge
BUILD=$CACHE/neo4j/build          # Maven's target directory (-DbuildDirectory)
LIB=$CACHE/neo4j/lib              # launcher jar + all runtime jars: run with java -cp
STAMP=$LIB/.source-sha256         # hash of pom.xml+src the jars in $LIB were built from
MAIN=kgforge.neo4jserver.Main
READY='neo4j-server: bolt listening on '   # printed by Main once clients can connect

NEO4J_BOLT=${NEO4J_BOLT:-127.0.0.1:7687}
NEO4J_DATA=${NEO4J_DATA:-$CACHE/neo4j/data}
NEO4J_HEAP=${NEO4J_HEAP:-1g}
NEO4J_START_TIMEOUT=${NEO4J_START_TIMEOUT:-120}
HOST=${NEO4J_BOLT%:*}
PORT=${NEO4J_BOLT##*:}

RUN=$CACHE/run
# A server on another port (e.g. a second instance for a test) gets its own
# pid and log file, so the two never get mixed up.
NAME=neo4j; [[ $PORT == 7687 ]] || NAME=neo4j-$PORT
PIDF=$RUN/$NAME.pid
LOGF=$RUN/$NAME.log
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

log() { echo "neo4j.sh: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ $HOST && $PORT =~ ^[0-9]+$ && $HOST != "$NEO4J_BOLT" ]] || die "NEO4J_BOLT must be host:port, got '$NEO4J_BOLT'"

# One mutating command at a time (parallel CI steps, or a build racing a start).
# The lock fd must not leak into the server, or it would hold the lock forever.
lock() {
  mkdir -p "$RUN"
  exec 9>>"$RUN/neo4j.lock"
  flock -w 600 9 || die "could not lock $RUN/neo4j.lock within 600 s"
}

# ---------------------------------------------------------------- probes
# Something accepts TCP connections on $NEO4J_BOLT (bash's /dev/tcp: no nc needed).
# shellcheck disable=SC2016  # $1/$2 are expanded by the inner bash
answers() { timeout 3 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$HOST" "$PORT" 2>/dev/null; }

# Bolt handshake: magic 6060B017 and four version proposals (5.0-5.8, 4.4, -, -).
# Prints the agreed version ("5.8"); fails if the peer does not speak Bolt.
# This tells a Neo4j from, say, a leftover HTTP server on the same port.
bolt_version() {
  local hex
  # shellcheck disable=SC2016  # $1/$2 are expanded by the inner bash
  hex=$(timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
    printf "\x60\x60\xb0\x17\x00\x08\x08\x05\x00\x00\x04\x04\x00\x00\x00\x00\x00\x00\x00\x00" >&3
    head -c 4 <&3 | od -An -tx1' _ "$HOST" "$PORT" 2>/dev/null) || return 1
  read -r _ _ minor major <<<"$hex" || true
  [[ ${major:-00} != 00 ]] || return 1
  echo "$((16#$major)).$((16#$minor))"
}

# Pid of the server this script started for $NEO4J_BOLT, if it is still that
# process (pids get reused): its command line must be our launcher on that address.
our_pid() {
  local pid
  [[ -f $PIDF ]] && pid=$(<"$PIDF") && [[ $pid =~ ^[0-9]+$ ]] || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -F " $MAIN " | grep -qF " --bolt $NEO4J_BOLT " || return 1
  echo "$pid"
}

# The data dir a running server was started with (NEO4J_DATA may differ now).
pid_data() { tr '\0' '\n' 2>/dev/null <"/proc/$1/cmdline" | sed -n '/^--data$/{n;p;q}'; }

rss() { awk '/^VmRSS:/ {printf "%.0f MiB", $2/1024}' "/proc/$1/status" 2>/dev/null; }

java_major() {
  "$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p'
}

check_java() {
  command -v "$JAVA" >/dev/null || die "java not found (Neo4j 5 needs Java 17 or 21; set JAVA_HOME)"
  local v; v=$(java_major)
  [[ ${v%%.*} =~ ^[0-9]+$ && ${v%%.*} -ge 17 ]] || die "$JAVA is Java '$v'; Neo4j 5 needs Java 17 or 21 (set JAVA_HOME)"
}

# ---------------------------------------------------------------- build
# Hash of everything the build reads from the work tree. "layout" is bumped when
# this script changes how $LIB is assembled, to force a rebuild.
source_hash() {
  (cd "$SRC" && { echo "layout=1"; find pom.xml src -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; } \
    | sha256sum | cut -d' ' -f1)
}

cmd_build() {
  local want; want=$(source_hash)
  if [[ -f $LIB/neo4j-server.jar && -f $STAMP && $(<"$STAMP") == "$want" ]]; then
    log "launcher up to date in $LIB"; return
  fi
  command -v mvn >/dev/null || die "mvn (Maven) is required to build the launcher"
  check_java
  log "building launcher with Maven (a first build downloads ~170 MB into ~/.m2: a few minutes)"
  local t0=$SECONDS tmp=$LIB.tmp
  rm -rf "$tmp"
  # package: compiles Main into $BUILD/neo4j-server.jar; copy-dependencies: all
  # runtime jars next to it, so running needs no Maven. Assembled in $tmp and
  # swapped in at the end, so an interrupted build never leaves a half lib/.
  # (Debian's Maven 3.8 prints stray ESC[0m codes even with -B -q; strip them.)
  mvn -B -q -f "$SRC/pom.xml" -DbuildDirectory="$BUILD" \
    package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" 2>&1 \
    | sed -u 's/\x1b\[0m//g' >&2
  cp "$BUILD/neo4j-server.jar" "$tmp/"
  echo "$want" >"$tmp/.source-sha256"
  if our_pid >/dev/null; then log "note: the running server still uses the old jars; restart it (stop, start)"; fi
  rm -rf "$LIB" && mv "$tmp" "$LIB"
  log "built launcher in $((SECONDS - t0))s: $LIB ($(find "$LIB" -name '*.jar' | wc -l) jars)"
}

# ---------------------------------------------------------------- start / stop
# Mostly what Neo4j's own launcher passes on Java 17+. Without the --add-opens,
# debug.log warns that the page cache uses a slower fallback for direct buffers
# and that transaction log preallocation/fadvise fail ("Incorrect file descriptor").
JVM_OPTS=(
  "-Xmx$NEO4J_HEAP"
  -Xms256m                                      # Neo4j warns when no initial heap is set
  -XX:+UseG1GC
  -XX:-OmitStackTraceInFastThrow
  -XX:+ExitOnOutOfMemoryError                   # die (and be noticed) rather than limp on
  -Djdk.nio.maxCachedBufferSize=1024
  -Dio.netty.tryReflectionSetAccessible=true
  -Dlog4j2.disable.jmx=true
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
)

# On a failed start: our launcher's output (exceptions land here), then
# Neo4j's own debug.log (what it was doing when it hung or gave up).
show_logs() {
  log "---- tail of $LOGF"
  tail -n 30 "$LOGF" >&2 || true
  if [[ -f $NEO4J_DATA/logs/debug.log ]]; then
    log "---- tail of $NEO4J_DATA/logs/debug.log"
    tail -n 15 "$NEO4J_DATA/logs/debug.log" | cut -c1-300 >&2 || true
  fi
}

# Waits until the log has the ready line AND Bolt accepts TCP; on failure shows
# the log tail and stops whatever was started, so the next start begins clean.
wait_ready() {
  local pid=$1 t0=$2 deadline=$((SECONDS + NEO4J_START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if grep -qF "$READY" "$LOGF" 2>/dev/null && answers; then
      log "ready in $(( ($(date +%s%N) - t0) / 1000000 )) ms: bolt://$NEO4J_BOLT (pid $pid, $(rss "$pid") RSS, Bolt $(bolt_version || echo '?'))"
      return
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PIDF"
      show_logs
      die "server exited during startup (log: $LOGF; Neo4j logs: $NEO4J_DATA/logs)"
    fi
    sleep 0.5
  done
  show_logs
  cmd_stop
  die "server not ready within ${NEO4J_START_TIMEOUT}s (log: $LOGF; Neo4j logs: $NEO4J_DATA/logs)"
}

cmd_start() {
  local pid t0 v
  t0=$(date +%s%N)
  if answers; then
    v=$(bolt_version) || die "$NEO4J_BOLT is in use by something that does not speak Bolt"
    if pid=$(our_pid); then log "already running: bolt://$NEO4J_BOLT (pid $pid, $(rss "$pid") RSS, Bolt $v)"
    else log "a Bolt server (protocol $v) already answers at $NEO4J_BOLT, not started by this script; using it"; fi
    return
  fi
  # Our server is alive but not answering yet (still starting, e.g. recovering
  # after a crash): wait for it; a second one would fail on the store lock.
  if pid=$(our_pid); then log "server (pid $pid) is starting; waiting"; wait_ready "$pid" "$t0"; return; fi
  rm -f "$PIDF"

  cmd_build
  check_java
  mkdir -p "$RUN" "$NEO4J_DATA"
  [[ ! -f $LOGF ]] || mv -f "$LOGF" "$LOGF.1"   # keep the previous run's log for post-mortems
  # setsid+nohup: own session, so it outlives this script and CI step shells.
  # (A background job of a non-interactive shell is no group leader, so setsid
  # does not fork and $! is the java pid.) 9>&-: do not inherit the lock.
  setsid nohup "$JAVA" "${JVM_OPTS[@]}" -cp "$LIB/*" "$MAIN" \
    --data "$NEO4J_DATA" --bolt "$NEO4J_BOLT" --http off >"$LOGF" 2>&1 </dev/null 9>&- &
  pid=$!
  echo "$pid" >"$PIDF"
  log "started Neo4j (pid $pid, data $NEO4J_DATA, log $LOGF); waiting up to ${NEO4J_START_TIMEOUT}s"
  wait_ready "$pid" "$t0"
}

cmd_stop() {
  local pid
  if ! pid=$(our_pid); then
    if [[ -f $PIDF ]]; then log "removing stale pid file (pid $(<"$PIDF") is not our server)"; rm -f "$PIDF"; fi
    if answers; then log "no server started by this script; leaving whatever answers at $NEO4J_BOLT alone"
    else log "not running"; fi
    return 0
  fi
  log "stopping Neo4j (pid $pid)"
  # SIGTERM runs Main's shutdown hook: a clean store shutdown, no recovery next time.
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then log "still running after 30 s; sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$PIDF"
  log "stopped"
}

# ---------------------------------------------------------------- status / env / reset
cmd_status() {
  local pid v
  if pid=$(our_pid); then log "server started by this script: pid $pid, $(rss "$pid") RSS, data $(pid_data "$pid"), log $LOGF"; fi
  if v=$(bolt_version); then log "Bolt server (protocol $v) answers at bolt://$NEO4J_BOLT"; return 0; fi
  log "no Bolt server answers at $NEO4J_BOLT"
  return 1
}

cmd_env() {
  printf 'export NEO4J_URI=%q\n' "bolt://$NEO4J_BOLT"
  # Auth is disabled: the server accepts any token (NoAuth, or basic auth with
  # any user/password, empty included), so empty credentials are fine.
  printf 'export NEO4J_USERNAME=\n'
  printf 'export NEO4J_PASSWORD=\n'
}

cmd_reset() {
  cmd_stop
  # Guard the rm -rf against a mistyped NEO4J_DATA: it must look like a Neo4j home.
  [[ -e $NEO4J_DATA ]] || { log "no data dir $NEO4J_DATA; nothing to reset"; return; }
  local real; real=$(realpath "$NEO4J_DATA")
  [[ $real != / && $real != "$(realpath "$HOME")" ]] || die "refusing to delete $real"
  if [[ -n $(ls -A "$real") && ! -d $real/data && ! -d $real/logs ]]; then
    die "$real does not look like a Neo4j home (no data/ or logs/); not deleting it"
  fi
  rm -rf "$real"
  log "deleted $real"
}

case ${1:-} in
  build) lock; cmd_build ;;
  start) lock; cmd_start ;;
  stop) lock; cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  reset) lock; cmd_reset ;;
  *) echo "usage: $0 {build|start|stop|status|env|reset}" >&2; exit 2 ;;
esac
