#!/usr/bin/env bash
# The example end to end both ways against one Temporal dev server and one Ollama: a build through
# Temporal (2 workers, 4 shards), then 4 shard processes at once and the reduce, then one process;
# the three bundles compared with kgforge bundle diff. Outputs under /tmp/ex-*. Usage:
#   scripts/temporal.sh up; KGFORGE=bin/kgforge bench/temporal/both-ways.sh
set -uo pipefail
K=${KGFORGE:?path of a kgforge binary}; P=${PIPELINE:-$(cd "$(dirname "$0")/../.." && pwd)/pipelines/example.yaml}
export OLLAMA_HOST=${OLLAMA_HOST:-127.0.0.1:11434} TEMPORAL_ADDRESS=127.0.0.1:7233 KGFORGE_TASK_QUEUE=exboth
rm -rf /tmp/ex-temporal /tmp/ex-shard /tmp/ex-local; mkdir -p /tmp/ex-logs
t0=$(date +%s); echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for w in 1 2; do $K worker > /tmp/ex-logs/worker$w.log 2>&1 & echo $! >> /tmp/ex-logs/workers.pid; done
sleep 2
$K build --pipeline $P --out /tmp/ex-temporal --engine temporal --shards 4 --json > /tmp/ex-logs/temporal.json 2> /tmp/ex-logs/temporal.err; echo "temporal rc=$? $(( $(date +%s)-t0 )) s load $(cut -d' ' -f1-3 /proc/loadavg)"
kill $(cat /tmp/ex-logs/workers.pid) 2>/dev/null
t1=$(date +%s)
for i in 0 1 2 3; do $K build --pipeline $P --out /tmp/ex-shard --shard $i/4 > /tmp/ex-logs/shard$i.log 2>&1 & done; wait
echo "shards done $(( $(date +%s)-t1 )) s"; $K build --pipeline $P --out /tmp/ex-shard --reduce --json > /tmp/ex-logs/reduce.json 2> /tmp/ex-logs/reduce.err; echo "reduce rc=$? $(( $(date +%s)-t1 )) s"
t2=$(date +%s); $K build --pipeline $P --out /tmp/ex-local --json > /tmp/ex-logs/local.json 2> /tmp/ex-logs/local.err; echo "local rc=$? $(( $(date +%s)-t2 )) s"
$K bundle diff /tmp/ex-temporal/latest /tmp/ex-local/latest; echo "diff temporal-local rc=$?"
$K bundle diff /tmp/ex-shard/latest /tmp/ex-local/latest; echo "diff shard-local rc=$?"
for f in temporal reduce local; do python3 -c "import json,sys; r=json.load(open('/tmp/ex-logs/$f.json')); print('$f', r.get('status'), 'chunks', r.get('chunks'), 'nodes', r.get('nodes'), 'edges', r.get('edges'), 'llm', {k:r['llm'].get(k) for k in ('chat_calls','generate_calls','calls','prompt_tokens','completion_tokens') if k in r['llm']})" 2>&1; done
