#!/usr/bin/env bash
# bench/example.sh: extraction on the example corpus, end to end, twice.
# The first build starts from an empty reply cache; the second rebuilds the
# unchanged example. With GLEANINGS=N (1..3) a third build asks for N
# gleaning turns per chunk: the first turn of every chunk comes from the
# cache, so its calls and time are what gleaning adds. Prints, from each
# run report: LLM calls, prompt and
# completion tokens, tokens/s, wall time per stage, the share of the extract
# stage the Ollama server was busy, and grounding drops by reason.
# Needs the services (make services); set OLLAMA_NUM_PARALLEL on the server
# and llm.concurrency in the pipeline together.
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KGFORGE_CACHE_DIR="$work/cache"
runs=(first second)
if [[ -n ${GLEANINGS:-} ]]; then
  # A copy beside the example, so its relative paths still hold.
  glean=pipelines/.example-gleanings-$$.yaml
  trap 'rm -rf "$work" "$glean"' EXIT
  { cat pipelines/example.yaml; printf 'extract:\n  gleanings: %d\n' "$GLEANINGS"; } >"$glean"
  runs+=(gleaning)
fi
for run in "${runs[@]}"; do
  pipeline=pipelines/example.yaml
  [[ $run == gleaning ]] && pipeline=$glean
  start=$(date +%s.%N)
  bin/kgforge build --pipeline "$pipeline" --out "$work/out" --json >"$work/$run.json" 2>"$work/$run.log" || [ $? -eq 3 ]
  end=$(date +%s.%N)
  python3 - "$work/$run.json" "$run" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
llm, ex = r["llm"], r["extract"]
stages = ", ".join(f"{k} {v['duration_ns']/1e9:.1f}s" for k, v in sorted(r["stages"].items()))
print(f"{sys.argv[2]} build: status {r['status']}, {r['chunks']} chunks, {llm['calls']} LLM calls, "
      f"{llm['prompt_tokens']} prompt + {llm['completion_tokens']} completion tokens, "
      f"{r['completion_tokens_per_second']:.1f} tokens/s, server busy {100*r.get('server_busy', 0):.1f}% of extract, wall {wall:.1f}s")
print(f"  stages: {stages}")
print(f"  triplets kept {ex['triplets_kept']}, dropped {ex['triplets_dropped']}; entities kept {ex.get('entities_kept', 0)}, dropped {ex.get('entities_dropped', {})}; cache hits {ex['cache_hits']}")
if ex.get("gleaning_calls"):
    print(f"  gleaning: {ex['gleaning_calls']} calls, {ex.get('triplets_gleaned', 0)} kept triplets found only by a gleaning turn")
PY
done
