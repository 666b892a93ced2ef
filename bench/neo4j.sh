#!/usr/bin/env bash
# bench/neo4j.sh: load a synthetic graph (bench/synth: 100k nodes, 300k
# relationships shaped like kgforge's) into the Neo4j of scripts/neo4j.sh
# with kgforge's loader at three batch sizes (staged beside the previous
# build, switched, the previous removed), reload the same bundle, and, in
# the same run, load triplets the naive way (one MERGE statement per
# triplet, as most LLM graph builders do) for a rate to compare.
# Environment: NEO4J_URI (default bolt://127.0.0.1:7687),
# KGFORGE_BENCH_NODES, KGFORGE_BENCH_RELS, KGFORGE_BENCH_NAIVE (triplets
# for the naive loader, default 10000).
# Usage: bench/neo4j.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export NEO4J_URI=${NEO4J_URI:-bolt://127.0.0.1:7687} KGFORGE_INTEGRATION=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/load.test" ./load
"$work/load.test" -test.run '^$' -test.bench 'Neo4j' -test.benchtime 1x -test.timeout 2h | tee "$work/out"
python3 - "$work/out" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"^BenchmarkNeo4j(\S+?)-\d+\s+\d+\s+(.*)$", line)
    if m:
        rows[m.group(1)] = {unit: float(v) for v, unit in re.findall(r"([\d.]+) (\S+)", m.group(2))}
naive = rows.get("Naive", {}).get("rels/s")
print()
print("| loader | nodes/s | relationships/s | load s | reload s | loader heap peak MiB | vs naive (rels/s) |")
print("|---|---|---|---|---|---|---|")
for name, r in rows.items():
    if name == "Naive":
        continue
    speed = f"{r['rels/s'] / naive:.0f}×" if naive else "—"
    print(f"| kgforge {name.replace('Load/', '')} | {r['nodes/s']:,.0f} | {r['rels/s']:,.0f} | {r['s/load']:.1f} | {r['s/reload']:.2f} | {r['MiB-heap-peak']:.0f} | {speed} |")
if naive:
    print(f"| naive MERGE per triplet ({rows['Naive']['triplets']:,.0f} triplets) | — | {naive:,.0f} | — | — | — | 1× |")
PY
