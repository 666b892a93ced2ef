#!/usr/bin/env bash
# bench/example_models.sh: the example build with each chat model, side by
# side in one run, from an empty reply cache each time, and each bundle's
# facts scored against the example's gold file (bench/examplefacts).
#   MODELS="gemma3:270m kgforge-extract" bench/example_models.sh [OUTDIR]
# CHUNK_SIZE=N builds with chunks of N tokens instead of the example's;
# WINDOW=N sets extract.window (the specialist's tokens a call).
# Prints per model: wall time, LLM calls, prompt and completion tokens,
# tokens per chunk, triplets kept and dropped, nodes, edges and merges, then
# the scorer's kept / correct / missed. Bundles stay in OUTDIR (default a
# temporary directory) for a closer look. Needs the services (make services).
# Neo4j is not loaded (NEO4J_URI is cleared): this measures extraction.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build
go build -o bin/examplefacts ./bench/examplefacts
out=${1:-$(mktemp -d)}
mkdir -p "$out"
export NEO4J_URI=
for model in ${MODELS:-gemma3:270m kgforge-extract}; do
  tag=${model//[:\/]/_}${CHUNK_SIZE:+-c$CHUNK_SIZE}${WINDOW:+-w$WINDOW}
  # A copy beside the example, so its relative paths still hold.
  pipeline=pipelines/.example-$tag-$$.yaml
  trap 'rm -f pipelines/.example-*-$$.yaml' EXIT
  sed "s|^\(  chat_model:\).*|\1 $model|" pipelines/example.yaml >"$pipeline"
  grep -q "chat_model: $model\$" "$pipeline" || { echo "example_models.sh: could not set chat_model in $pipeline" >&2; exit 1; }
  if [[ -n ${CHUNK_SIZE:-} ]]; then
    sed -i "s|^\(  size:\) [0-9]*|\1 $CHUNK_SIZE|" "$pipeline"
    grep -q "^  size: $CHUNK_SIZE " "$pipeline" || { echo "example_models.sh: could not set the chunk size in $pipeline" >&2; exit 1; }
  fi
  [[ -z ${WINDOW:-} ]] || printf 'extract:\n  window: %s\n' "$WINDOW" >>"$pipeline"
  export KGFORGE_CACHE_DIR="$out/$tag/cache"
  rm -rf "$out/$tag" && mkdir -p "$out/$tag"
  start=$(date +%s.%N)
  bin/kgforge build --pipeline "$pipeline" --out "$out/$tag/out" --json >"$out/$tag/report.json" 2>"$out/$tag/build.log" || [ $? -eq 3 ]
  end=$(date +%s.%N)
  python3 - "$out/$tag/report.json" "$model" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
llm, ex = r["llm"], r["extract"]
n = max(1, ex["chunks"] - ex.get("chunks_without_sentences", 0))
print(f"== {sys.argv[2]}: status {r['status']}, wall {wall:.1f}s, {r['chunks']} chunks ({n} asked), {llm['calls']} LLM calls, "
      f"{llm['prompt_tokens']} prompt + {llm['completion_tokens']} completion tokens "
      f"({llm['prompt_tokens']/n:.0f} + {llm['completion_tokens']/n:.0f} a chunk), model time {llm.get('server_duration_ns', 0)/1e9:.1f}s")
print(f"   triplets kept {ex['triplets_kept']}, dropped {ex['triplets_dropped']}; entities kept {ex.get('entities_kept', 0)}")
print(f"   graph: {r.get('nodes')} nodes, {r.get('edges')} edges, {r.get('merges')} merges")
PY
  bin/examplefacts -bundle "$out/$tag/out/latest" -json "$out/$tag/facts.json" | sed 's/^/   /'
done
echo "bundles and reports under $out"
