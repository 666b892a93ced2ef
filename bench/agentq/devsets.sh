#!/usr/bin/env bash
# bench/agentq on the benchmark dev data, the run recorded in
# docs/benchmarks.md ("The agent on the dev sets, paired"): samples N
# questions of each set (TAT-QA, Spider, KaggleDBQA), builds their bundles
# (no extraction), asks each question of the kgforge agent, the
# full-context baseline and the sql-only baseline (paired) and writes one
# report per set and the tables to OUT.
#
#   bench/agentq/devsets.sh                          # N=5 BUDGET=4 SETS=tatqa,spider,kaggle
#   OLLAMA_HOST=127.0.0.1:11437 N=5 LIMIT=1200 bench/agentq/devsets.sh
#
# LIMIT (seconds, per set) stops a set with SIGINT; its table then holds
# the questions asked so far and the next set starts. MODEL picks another
# Ollama model (default gemma3:270m); DATA the dev data directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-$(mktemp -d -t agentq-XXXXXX)}
data=${DATA:-../shared/benchmarks}
bin=$out/agentq
nice -n 15 go build -o "$bin" ./bench/agentq
args=(-data "$data" -n "${N:-5}" -budget "${BUDGET:-4}" -seed "${SEED:-1}" -work "$out/work" -out "$out")
[[ -n ${MODEL:-} ]] && args+=(-model "$MODEL")
rc=0
for set in $(tr ',' ' ' <<<"${SETS:-tatqa,spider,kaggle}"); do
	echo "$set: load before $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%H:%M:%S); writing to $out" >&2
	timeout -s INT "${LIMIT:-0}" "$bin" "${args[@]}" -sets "$set" 2>"$out/$set.log" | tee "$out/$set.md" || rc=$?
	echo "$set: load after $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%H:%M:%S), exit $rc" >&2
done
exit "$rc"
