#!/usr/bin/env bash
# bench/bundle.sh: bundle write and read speed on a synthetic graph of 100k
# nodes and 300k edges shaped like kgforge's (bench/synth), with uncompressed
# Arrow IPC of the same records as the ceiling on the same disk, and 100k
# vectors of 384 float32 written and read back through the memory map.
# Prints one row per benchmark: MB/s of each run (bytes counted as the
# records' uncompressed Arrow size, the same for every format), rows/s, file
# size and heap peaks; and the whole run's maximum RSS from /usr/bin/time -v
# when it is installed. Files go under $TMPDIR (default /tmp): point it at the
# disk to measure.
# Usage: bench/bundle.sh [BENCHTIME [COUNT]]   (defaults: 3x 3)
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${1:-3x}
count=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/bundle.test" ./bundle
run=("$work/bundle.test" -test.run '^$' -test.bench 'BundleWrite|BundleRead|Vectors'
  -test.benchtime "$benchtime" -test.count "$count")
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v -o "$work/time" "${run[@]}" | tee "$work/out"
else
  "${run[@]}" | tee "$work/out"
fi
python3 - "$work/out" "$work/time" <<'PY'
import os, re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"^Benchmark(\S+?)-\d+\s+\d+\s+(.*)$", line)
    if not m:
        continue
    vals = {unit: float(v) for v, unit in re.findall(r"([\d.]+) (\S+)", m.group(2))}
    runs.setdefault(m.group(1), []).append(vals)
print()
print("| benchmark | MB/s (runs) | median MB/s | rows/s (median) | file MB | peak heap in use MB | peak live heap above input MB |")
print("|---|---|---|---|---|---|---|")
for name, rs in runs.items():
    mbs = [r["MB/s"] for r in rs]
    rows = [r["rows/s"] for r in rs if "rows/s" in r]
    print(f"| {name} | {', '.join(f'{x:.1f}' for x in mbs)} | {statistics.median(mbs):.1f} | "
          f"{f'{statistics.median(rows):,.0f}' if rows else '—'} | "
          f"{rs[0].get('file_MB', float('nan')):.1f} | {max(r['peak_heap_inuse_MB'] for r in rs):.0f} | "
          f"{max(r['peak_live_extra_MB'] for r in rs):.0f} |".replace("nan", "—"))
if os.path.exists(sys.argv[2]):
    for line in open(sys.argv[2]):
        if "Maximum resident set size" in line:
            kb = int(line.split(":")[1])
            print(f"\nwhole run: maximum RSS {kb/1024:.0f} MiB")
PY
