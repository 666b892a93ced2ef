#!/usr/bin/env bash
# Workflow overhead of `kgforge build --engine temporal` against a
# single-process build of the same pipeline, same machine, same reply cache
# (docs/benchmarks.md, "Temporal workflow overhead").
#   bench/temporal/overhead.sh [PIPELINE] [RUNS]
# Needs a Temporal server at $TEMPORAL_ADDRESS (scripts/temporal.sh up) and
# the model server; run it once before measuring so that every model reply
# is in the cache (KGFORGE_CACHE_DIR, default ~/.cache/kgforge). Each build
# goes to a fresh output directory (no stored segment: every unit runs, the
# replies come from the cache), then again into the same directory (every
# segment stored: what is left is the engine's and the workflow's own cost).
# SKIP_EXTRACT=1 runs a copy of the pipeline with extract.skip: true (no
# model at all: the engine and the orchestration alone).
set -euo pipefail
cd "$(dirname "$0")/../.."
PIPELINE=${1:-pipelines/example.yaml}
RUNS=${2:-3}
SHARDS=${SHARDS:-4}
WORKERS=${WORKERS:-2}
export TEMPORAL_ADDRESS=${TEMPORAL_ADDRESS:-127.0.0.1:7233}
export KGFORGE_TASK_QUEUE=${KGFORGE_TASK_QUEUE:-kgforge-bench-$$}
TMP=$(mktemp -d)
if [[ ${SKIP_EXTRACT:-} == 1 ]]; then # beside the original: its relative paths stay right
  skip=$(dirname "$PIPELINE")/.bench-skip-$$.yaml
  { cat "$PIPELINE"; printf 'extract:\n  skip: true\n'; } >"$skip"
  PIPELINE=$skip
fi
BIN=$TMP/kgforge
go build -o "$BIN" ./cmd/kgforge
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait; rm -rf "$TMP" "${skip:-}"; }
trap cleanup EXIT
for i in $(seq 1 "$WORKERS"); do
  "$BIN" worker 2>"$TMP/worker-$i.log" &
  pids+=($!)
done
secs() { local t0; t0=$(date +%s%N); "$@" >/dev/null 2>>"$TMP/build.log" || [[ $? -eq 3 ]] || { tail -5 "$TMP/build.log" >&2; exit 1; }; echo "scale=2; ($(date +%s%N) - $t0) / 1000000000" | bc; }
"$BIN" build --pipeline "$PIPELINE" --out "$TMP/warmup" >/dev/null 2>&1 || true # every reply in the cache
echo "pipeline $PIPELINE${SKIP_EXTRACT:+ (extract.skip)}, $SHARDS shards, $WORKERS workers, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %-10s %-14s %-14s\n' run engine fresh_state_s warm_state_s
for r in $(seq 1 "$RUNS"); do
  for engine in local temporal; do
    out=$TMP/$engine-$r
    args=(build --pipeline "$PIPELINE" --out "$out" --engine "$engine" --shards "$SHARDS")
    fresh=$(secs "$BIN" "${args[@]}")
    warm=$(secs "$BIN" "${args[@]}")
    printf '%-4s %-10s %-14s %-14s\n' "$r" "$engine" "$fresh" "$warm"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
