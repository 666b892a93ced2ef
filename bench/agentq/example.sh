#!/usr/bin/env bash
# kgforge eval agent on the example bundle, the run recorded in
# docs/benchmarks.md ("Agent evaluation on the bundled model, paired"):
# builds the example (unless BUNDLE names a built one), then asks the
# sampled questions of examples/bikeco/questions.yaml of the kgforge agent,
# the full-context baseline and the sql-only baseline, question by question
# (paired), and writes the report, the transcript and the table to OUT.
#
#   bench/agentq/example.sh                         # SAMPLE=10 SEED=2 BUDGET=4
#   OLLAMA_HOST=127.0.0.1:11436 LIMIT=1800 bench/agentq/example.sh
#
# LIMIT (seconds) stops the run with SIGINT; the table then holds the
# questions asked so far. MODEL picks another Ollama model (default: the
# bundle's chat model).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$(mktemp -d -t agenteval-XXXXXX)}
kgforge=${KGFORGE:-}
if [[ -z $kgforge ]]; then
	kgforge=$out/kgforge
	go build -o "$kgforge" ./cmd/kgforge
fi
bundle=${BUNDLE:-}
if [[ -z $bundle ]]; then
	"$kgforge" build --pipeline pipelines/example.yaml --out "$out/bikeco" >/dev/null
	bundle=$out/bikeco/latest
fi
args=(--bundle "$bundle" --questions examples/bikeco/questions.yaml --sample "${SAMPLE:-10}" --seed "${SEED:-2}"
	--budget "${BUDGET:-4}" --out "$out/report.json" --transcript "$out/transcript.jsonl")
[[ -n ${MODEL:-} ]] && args+=(--model "$MODEL")
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); writing to $out" >&2
rc=0
timeout -s INT "${LIMIT:-0}" "$kgforge" eval agent "${args[@]}" | tee "$out/table.md" || rc=$?
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exit "$rc"
