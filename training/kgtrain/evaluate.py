"""Evaluation of an extraction model served by Ollama on the held-out sets
that prepare wrote (never trained on: split.json), sentence by sentence,
with the prompt kgforge sends the specialist.

Reports per set: triple precision, recall and F1 (micro, after the
benchmarks' normalisation: lower case, punctuation dropped, white space
made single), the share of replies that parse (every line five fields,
ended by END), the share of subjects and objects written verbatim in the
passage, entity typing accuracy (of predicted names that match a gold
name, the share typed as gold types it), tokens and seconds per item.
Python standard library only: the model is asked over HTTP.
"""

import json
import os
import re
import time
import unicodedata
import urllib.request

from . import REPO
from .prompt import parse_facts, render_prompt


def norm(s):
    s = unicodedata.normalize("NFC", s.lower())
    return " ".join(re.findall(r"[^\W_]+", s))


def ask(host, model, prompt, num_predict=384, threads=1):
    req = {"model": model, "prompt": prompt, "raw": True, "stream": False,
           "options": {"temperature": 0, "seed": 1, "num_predict": num_predict, "num_ctx": 2048,
                       "num_thread": threads, "stop": ["\nEND", "\nPassage:"]}}
    r = urllib.request.Request(f"http://{host}/api/generate", json.dumps(req).encode(),
                               {"Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=600) as resp:
        return json.load(resp)




def example_text():
    """The worked examples kgforge's few-shot prompts show (a name from
    there that is not in the passage was copied, not read)."""
    with open(os.path.join(REPO, "prompts", "extract_examples.tmpl")) as f:
        return f.read().lower()


def score_item(row, reply, examples=""):
    text = reply["response"]
    facts, bad = parse_facts(text)
    ended = reply.get("done_reason") == "stop"
    gold = [(norm(s), norm(p), norm(o)) for s, _, p, o, _ in row["facts"]]
    used = [False] * len(gold)
    tp = 0
    for s, _, p, o, _ in facts:
        k = (norm(s), norm(p), norm(o))
        for i, g in enumerate(gold):
            if not used[i] and g == k:
                used[i] = True
                tp += 1
                break
    gtype = {}
    for s, st, _, o, ot in row["facts"]:
        if st:
            gtype.setdefault(norm(s), st)
        if ot:
            gtype.setdefault(norm(o), ot)
    typed = right = verbatim = names = leaked = 0
    passage = row["passage"].lower()
    for s, st, _, o, ot in facts:
        for n, t in ((s, st), (o, ot)):
            names += 1
            verbatim += n.lower() in passage
            leaked += n.lower() not in passage and len(n) > 3 and n.lower() in examples
            if norm(n) in gtype:
                typed += 1
                right += norm(t) == norm(gtype[norm(n)])
    return {"tp": tp, "fp": len(facts) - tp, "fn": len(gold) - tp, "parsed": bad == 0 and ended,
            "names": names, "verbatim": verbatim, "leaked": leaked, "typed": typed, "typed_right": right,
            "prompt_tokens": reply.get("prompt_eval_count", 0), "completion_tokens": reply.get("eval_count", 0)}


def summarize(rows):
    tp, fp, fn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn"))
    p = tp / (tp + fp) if tp + fp else 0.0
    rc = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * rc / (p + rc) if p + rc else 0.0
    n = len(rows)
    names = sum(r["names"] for r in rows)
    typed = sum(r["typed"] for r in rows)
    return {"items": n, "precision": round(p, 3), "recall": round(rc, 3), "f1": round(f, 3),
            "tp": tp, "fp": fp, "fn": fn,
            "parsed": round(sum(r["parsed"] for r in rows) / max(1, n), 3),
            "verbatim": round(sum(r["verbatim"] for r in rows) / max(1, names), 3),
            "leaked_from_examples": sum(r["leaked"] for r in rows),
            "typing_accuracy": round(sum(r["typed_right"] for r in rows) / typed, 3) if typed else None,
            "prompt_tokens_per_item": round(sum(r["prompt_tokens"] for r in rows) / max(1, n), 1),
            "completion_tokens_per_item": round(sum(r["completion_tokens"] for r in rows) / max(1, n), 1),
            "seconds_per_item": round(sum(r["seconds"] for r in rows) / max(1, n), 2)}


def evaluate(cfg, model, sets, n=0, out=None):
    host = os.environ.get("OLLAMA_HOST", "127.0.0.1:11434").removeprefix("http://")
    threads = int(os.environ.get("KGFORGE_NUM_THREAD", "1"))
    results = {"model": model, "date": time.strftime("%Y-%m-%d %H:%M"), "sets": {}}
    examples = example_text()
    for s in sets:
        path = os.path.join(cfg["work"], "data", f"eval_{s}.jsonl")
        with open(path) as f:
            rows = [json.loads(l) for l in f]
        if n:
            rows = rows[:n]
        scored = []
        for row in rows:
            t0 = time.time()
            reply = ask(host, model, render_prompt(row["passage"], row["types"], row["predicates"]), threads=threads)
            r = score_item(row, reply, examples)
            r["seconds"] = time.time() - t0
            scored.append(r)
        results["sets"][s] = summarize(scored)
        print(s, json.dumps(results["sets"][s]), flush=True)
    if out:
        with open(out, "w") as f:
            json.dump(results, f, indent=1)
    return results
