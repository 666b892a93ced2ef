#!/usr/bin/env bash
# Names/s of all-minilm:l6-v2 through a private Ollama server (batch sizes,
# parallel slots, num_thread) and through ONNX Runtime on the same sample, in
# one run. Results: one JSON line per configuration in $OUT/results.jsonl.
#   bench/embed/run.sh            (from the repository root; env: N, PORT, OUT, DATA)
# Needs: scripts/ollama.sh install + models (the binary and the model store),
# and bench/embed/setup.sh (the venv with onnxruntime and the ONNX graph).
set -euo pipefail
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/kgforge
E=$CACHE/embedbench
PORT=${PORT:-11438}
N=${N:-2048}
OUT=${OUT:-$E/out}
DATA=${DATA:-$(cd "$(git rev-parse --show-toplevel)/.." && pwd)/shared/benchmarks/entity-resolution}
MODEL_DIR=$CACHE/models/all-MiniLM-L6-v2
mkdir -p "$OUT"
log() { echo "run.sh: $(date -u +%T) $*" >&2; }

pidf=$E/ollama-$PORT.pid
start_server() { # $1: OLLAMA_NUM_PARALLEL
  stop_server
  OLLAMA_HOST=127.0.0.1:$PORT OLLAMA_MODELS=$CACHE/ollama/models OLLAMA_NUM_PARALLEL=$1 \
    setsid nohup "$CACHE/bin/ollama" serve >"$OUT/ollama-$PORT.log" 2>&1 </dev/null &
  echo $! >"$pidf"
  for _ in $(seq 1 60); do curl -fsS "127.0.0.1:$PORT/api/version" >/dev/null 2>&1 && return; sleep 0.5; done
  log "server on $PORT did not answer"; exit 1
}
stop_server() {
  [[ -f $pidf ]] || return 0
  local pid; pid=$(cat "$pidf")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$pidf"
}
trap stop_server EXIT

nice -n 15 go build -o "$E/embedbench" ./bench/embed
ollama() { "$E/embedbench" -data "$DATA" -host "http://127.0.0.1:$PORT" -n "$N" -out "$OUT/results.jsonl" "$@"; }
ort() {
  "$E/venv/bin/python" bench/embed/ort_bench.py --names "$OUT/sample.txt" --tokenizer "$MODEL_DIR/tokenizer.json" \
    --ollama "$OUT/sample.f32" --out "$OUT/results.jsonl" "$@"
}
uptime | tee -a "$OUT/uptime.log"

grid() {
# Ollama, one slot: num_thread 1 at every batch size (its vectors are the
# reference), then the server's default threads on a small sample (slow
# under load: its threads spin waiting for each other).
start_server 1
ollama -batches 1,16,64,256,1024 -c 1 -num-thread 1 -label "OLLAMA_NUM_PARALLEL=1 num_thread=1" -vectors "$OUT/sample"
ollama -n "${N_SLOW:-64}" -batches 64 -c 1 -label "OLLAMA_NUM_PARALLEL=1 num_thread=default"
ollama -n "${N_SLOW:-64}" -batches 64 -c 1 -num-thread 2 -label "OLLAMA_NUM_PARALLEL=1 num_thread=2"
uptime | tee -a "$OUT/uptime.log"
for p in 2 4; do
  start_server $p
  ollama -batches 16,64,256 -c $p -num-thread 1 -label "OLLAMA_NUM_PARALLEL=$p num_thread=1"
  uptime | tee -a "$OUT/uptime.log"
done
stop_server

# ONNX Runtime on the same names, compared with Ollama's vectors.
ort --model "$E/minilm.onnx" --batches 1,16,64,256,1024 --threads 1 --label "fp32 graph, 1 thread"
ort --model "$E/minilm.onnx" --batches 16,64,256 --threads 2 --label "fp32 graph, 2 threads"
ort --model "$E/minilm.onnx" --batches 64 --threads 2 --spin --label "fp32 graph, 2 threads, spinning"
uptime | tee -a "$OUT/uptime.log"
}

# CPU seconds per name on all N_ALL distinct names (the machine is shared:
# CPU time, not wall time, says what an idle core does), Ollama with one
# thread (no spinning, so its CPU time is work) and ONNX Runtime with one.
cpu() {
  local n=${N_ALL:-0}
  start_server 1
  ollama -n "$n" -batches 64,256 -c 1 -num-thread 1 -runner-pid "$(cat "$pidf")" \
    -label "cpu: OLLAMA_NUM_PARALLEL=1 num_thread=1" -vectors "$OUT/all"
  stop_server
  "$E/venv/bin/python" bench/embed/ort_bench.py --names "$OUT/all.txt" --tokenizer "$MODEL_DIR/tokenizer.json" \
    --ollama "$OUT/all.f32" --out "$OUT/results.jsonl" --model "$E/minilm.onnx" --batches 64,256 --threads 1 \
    --save "$OUT/all-ort.f32" --label "cpu: fp32 graph, 1 thread" ${ST:+--st "$MODEL_DIR"}
  uptime | tee -a "$OUT/uptime.log"
}

# The pipeline's own path: onnxembed (Go) on all names, 1 and 2 threads,
# its vectors compared with Ollama's from the cpu step.
gopath() {
  local t
  for t in 1 2; do
    "$E/embedbench" -runtime onnx -data "$DATA" -n "${N_ALL:-0}" -batches 16,64 -threads $t \
      -label "go: onnxembed, $t thread(s)" -out "$OUT/results.jsonl" -vectors "$OUT/all-go"
  done
  "$E/venv/bin/python" - "$OUT" <<'PY'
import sys, numpy as np
d = sys.argv[1]
names = open(f"{d}/all.txt").read().split("\n")[:-1]
assert names == open(f"{d}/all-go.txt").read().split("\n")[:-1], "samples differ"
a, b = (np.fromfile(f"{d}/{f}.f32", np.float32).reshape(len(names), -1) for f in ("all", "all-go"))
c = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
print(f"go vs ollama: {len(names)} names, cosine min {c.min():.4f}, 1st percentile {np.percentile(c, 1):.6f}, "
      f"below 0.9999: {(c < 0.9999).sum()}")
PY
  uptime | tee -a "$OUT/uptime.log"
}

for step in ${STEPS:-grid cpu gopath}; do "$step"; done
log "done: $OUT/results.jsonl"
