#!/usr/bin/env bash
# The first build of the example's documents by kgforge and by LightRAG, in
# one run, one after the other: the same Ollama (OLLAMA_HOST), chat model and
# embedding model, the same documents, an empty LLM cache for kgforge and an
# empty working folder for LightRAG. Prints one table row per system: wall
# time, LLM calls, prompt and completion tokens, entities, relations, and
# the share of relations whose subject and object both appear in the
# documents (as whole words, ignoring case).
#
#   bench/buildpeers/run.sh                       # the example's .md and .txt documents
#   bench/buildpeers/run.sh examples/bikeco/docs/suppliers.txt ...
#
# KGFORGE_NUM_THREAD=N sends Ollama's num_thread N with every chat and
# embedding call of both builders (1 is several times faster on shared
# cores); kgforge embeds through the same server (embed_runtime: ollama).
# Needs the LightRAG venv of bench/extractq/peers/setup.sh. WORK keeps the
# run's files (default: a new temporary folder); KGFORGE names a binary
# (default: built from this tree); MODEL and EMBED_MODEL the models.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${PEERS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kgforge/bench/peers-venv}
model=${MODEL:-gemma3:270m}
embed=${EMBED_MODEL:-all-minilm:l6-v2}
work=${WORK:-$(mktemp -d -t buildpeers-XXXXXX)}
docs=("$@")
if ((${#docs[@]} == 0)); then docs=(examples/bikeco/docs/*.md examples/bikeco/docs/*.txt); fi
kgforge=${KGFORGE:-}
if [[ -z $kgforge ]]; then
	kgforge=$work/kgforge
	nice -n 15 go build -o "$kgforge" ./cmd/kgforge   # the build at low priority, the run at normal
fi
mkdir -p "$work/corpus/docs"
cp "${docs[@]}" "$work/corpus/docs/"
cat >"$work/corpus/pipeline.yaml" <<YAML
name: buildpeers
root: .
output: out
sources:
  - {name: documents, paths: ["docs/*"]}
chunking: {size: 300, overlap: 40}
llm: {chat_model: "$model", embed_model: "$embed", embed_runtime: ollama, concurrency: 1}
neo4j: {mode: never}
YAML
echo "documents: ${docs[*]}; model $model, embeddings $embed, Ollama ${OLLAMA_HOST:-127.0.0.1:11434}, KGFORGE_NUM_THREAD=${KGFORGE_NUM_THREAD:-unset}" >&2
echo "start: $(date -u +%FT%TZ) $(uptime)" >&2

start=$(date +%s.%N)
KGFORGE_CACHE_DIR=$work/cache "$kgforge" build --pipeline "$work/corpus/pipeline.yaml" --json >"$work/kgforge-report.json"
end=$(date +%s.%N)
"$kgforge" query --bundle "$work/corpus/out/latest" "SELECT subject, object FROM triplets" >"$work/kgforge-triplets.tsv"
"$kgforge" query --bundle "$work/corpus/out/latest" "SELECT count(*) FROM nodes WHERE kind = 'concept'" >"$work/kgforge-entities.tsv"
echo "kgforge done: $(date -u +%FT%TZ) $(uptime)" >&2

"$venv/lightrag/bin/python" bench/buildpeers/lightrag_build.py --model "$model" --embed-model "$embed" \
	--work "$work/lightrag" --out "$work/lightrag.json" "$work"/corpus/docs/* >&2
echo "lightrag done: $(date -u +%FT%TZ) $(uptime)" >&2

python3 - "$work" "$(echo "$end - $start" | bc)" <<'PY'
import csv, glob, json, re, sys
work, kg_seconds = sys.argv[1], float(sys.argv[2])
corpus = "\n".join(open(f, encoding="utf-8").read() for f in sorted(glob.glob(work + "/corpus/docs/*"))).casefold()

def in_corpus(name):
    """The name occurs in the documents as whole words, ignoring case."""
    name = " ".join(name.casefold().split())
    return bool(name) and re.search(r"(?<!\w)" + r"\s+".join(map(re.escape, name.split())) + r"(?!\w)", corpus) is not None

def share(rels):
    g = sum(1 for s, o in rels if in_corpus(s) and in_corpus(o))
    return f"{g} of {len(rels)} ({100 * g / len(rels):.0f} %)" if rels else "—"

rep = json.load(open(work + "/kgforge-report.json"))
with open(work + "/kgforge-triplets.tsv", encoding="utf-8") as f:
    kg_rels = [tuple(r[:2]) for r in list(csv.reader(f, delimiter="\t"))[1:]]
entities = int(open(work + "/kgforge-entities.tsv").read().split()[-1])
lr = json.load(open(work + "/lightrag.json"))
lr_rels = [tuple(r) for r in lr["relation_list"]]
print("| system | wall | LLM chat calls | prompt / completion tokens | embedding calls | entities | relations | subject and object in the documents |")
print("|---|---|---|---|---|---|---|---|")
x = rep["extract"]
print(f"| kgforge | {kg_seconds:.0f} s | {x['llm_calls']} | {rep['llm']['prompt_tokens']:,} / {rep['llm']['completion_tokens']:,} | "
      f"{rep['llm']['calls'] - x['llm_calls']} | {entities} | {len(kg_rels)} | {share(kg_rels)} |")
print(f"| LightRAG {lr['version']} | {lr['seconds']:.0f} s | {lr['llm_calls']} | {lr['prompt_tokens']:,} / {lr['completion_tokens']:,} | "
      f"{lr['embed_calls']} | {lr['entities']} | {len(lr_rels)} | {share(lr_rels)} |")
print("LightRAG's requests by num_thread:", lr["num_thread_sent"])
if lr["failed"]:
    print("LightRAG failed documents:", lr["failed"])
PY
