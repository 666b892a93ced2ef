"""What both peer drivers share: flags, the per-item result cache, output.

Input: JSONL, one {"id": ..., "text": ...} per line. Output: JSONL, one line
per item, in input order:

  {"id", "system", "version", "model", "entities": [{"name", "type"}],
   "relations": [{"subject", "predicate", "object", "description"}],
   "llm_calls", "prompt_tokens", "completion_tokens", "llm_seconds",
   "cut_at_bound", "embed_calls", "embed_tokens", "seconds", "cached", "error"}

Counters come from the counting proxy (llmproxy.py): what Ollama reported in
its replies. A cached item repeats the counters of the run that made it
("cached": true) and costs nothing now.
"""

import argparse
import hashlib
import json
import os
import sys
import time
import traceback

import llmproxy

# The bench (bench/extractq/peers.go) writes tiktoken's BPE files here and
# sets TIKTOKEN_CACHE_DIR; this default is for running a driver by hand.
os.environ.setdefault("TIKTOKEN_CACHE_DIR", os.path.join(
    os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache")),
    "kgforge", "bench", "peers-venv", "tiktoken"))


def parse_args(system):
    p = argparse.ArgumentParser(description=f"Run {system}'s own extractor on bench items.")
    p.add_argument("--in", dest="inp", required=True, help="items JSONL: {id, text}")
    p.add_argument("--out", required=True, help="results JSONL")
    p.add_argument("--model", default="gemma3:270m", help="Ollama chat model")
    p.add_argument("--embed-model", default="all-minilm:l6-v2", help="Ollama embedding model")
    p.add_argument("--embed-dim", type=int, default=384, help="dimensions of the embedding model")
    p.add_argument("--num-predict", type=int, default=512, help="bound on completion tokens per call")
    p.add_argument("--num-ctx", type=int, default=8192, help="context window asked of Ollama")
    p.add_argument("--work", default=os.path.join(os.path.expanduser("~"), ".cache", "kgforge", "bench", "peers"),
                   help="working and cache folder")
    return p.parse_args()


def read_items(path):
    items = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                it = json.loads(line)
                if not it.get("id") or "text" not in it:
                    sys.exit(f"{path} line {n}: an item needs an id and a text")
                items.append(it)
    return items


def cache_key(*parts):
    return hashlib.sha256("\x00".join(str(p) for p in parts).encode()).hexdigest()[:32]


def run(system, version, args, key_parts, extract_one):
    """extract_one(item, proxy_url, workdir) -> (entities, relations)."""
    items = read_items(args.inp)
    cache_dir = os.path.join(args.work, system, "results")
    os.makedirs(cache_dir, exist_ok=True)
    proxy = llmproxy.Proxy()
    try:
        with open(args.out, "w", encoding="utf-8") as out:
            for i, it in enumerate(items, 1):
                key = cache_key(system, version, args.model, args.embed_model, args.num_predict, args.num_ctx,
                                *key_parts, it["text"])
                path = os.path.join(cache_dir, key + ".json")
                if os.path.exists(path):
                    with open(path, encoding="utf-8") as f:
                        rec = json.load(f)
                    rec["id"], rec["cached"] = it["id"], True
                else:
                    rec = one(system, version, args, it, proxy, os.path.join(args.work, system, "runs", key), extract_one)
                    if not rec["error"]:
                        with open(path + ".tmp", "w", encoding="utf-8") as f:
                            json.dump(rec, f)
                        os.replace(path + ".tmp", path)
                out.write(json.dumps(rec) + "\n")
                out.flush()
                print(f"{system} {i}/{len(items)} {it['id']}: {len(rec['entities'])} entities, "
                      f"{len(rec['relations'])} relations, {rec['llm_calls']} calls, {rec['seconds']:.0f}s"
                      f"{' (cached)' if rec['cached'] else ''}{' error: ' + rec['error'] if rec['error'] else ''}",
                      file=sys.stderr, flush=True)
    finally:
        proxy.close()


def one(system, version, args, it, proxy, workdir, extract_one):
    before, start = proxy.counters.snapshot(), time.monotonic()
    entities, relations, error = [], [], ""
    try:
        entities, relations = extract_one(it, proxy.url, workdir)
    except Exception as e:  # one bad item fails alone, named
        error = f"{type(e).__name__}: {e}"
        traceback.print_exc(file=sys.stderr)
    rec = {"id": it["id"], "system": system, "version": version, "model": args.model,
           "entities": entities, "relations": relations}
    rec.update(llmproxy.diff(proxy.counters.snapshot(), before))
    rec.update(seconds=round(time.monotonic() - start, 3), cached=False, error=error)
    return rec
