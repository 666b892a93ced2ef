"""Data preparation for the action model: the agent's own turns.

bench/agenttraj (Go) runs kgforge's real agent loop against an oracle on
the text-to-SQL dev databases and writes train.jsonl and eval.jsonl, one
(prompt, completion) pair a turn, each prompt the bytes the loop sends
the model. `prepare` here takes them as they are: it checks that no
held-out database (training/agent_split.json) reaches training, drops the
pairs longer than the config's bound, shuffles the rest with a fixed
seed (once per epoch, prepare.epochs passes over the pairs, 1 unless
told), and writes the stream train() reads (data/train.jsonl) and the
held-out turns (data/eval_agent.jsonl), with their SHA-256 in the data
manifest. Standard library only.
"""

import json
import os
import random

from .prepare import approx_tokens, write_jsonl

LICENCES = {
    "spider": "CC BY-SA 4.0 (Spider dev, via hyukkyukang/text2SQL)",
    "kaggle": "CC BY-SA 4.0 (KaggleDBQA, via hyukkyukang/text2SQL)",
    "synthetic": "MIT (kgforge: bench/agenttraj -sets synthetic, databases and questions made from a seed)",
}


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def prepare_agent(cfg, out):
    """Writes train.jsonl and eval_agent.jsonl under out; returns the data manifest."""
    d = cfg["prepare"]
    src = os.path.expanduser(d["trajectories"])
    with open(cfg["agent_split"]) as f:
        held = {(s, db) for s, dbs in json.load(f)["heldout"].items() for db in dbs}
    # bench/agenttraj writes beside the pairs the databases its run held
    # out: for a synthetic set of another seed or size than the default,
    # the rule's picks among the databases it made, which the split file
    # cannot list. Both hold out.
    ran = os.path.join(src, "heldout.json")
    if os.path.exists(ran):
        with open(ran) as f:
            held |= {(s, db) for s, dbs in json.load(f)["heldout"].items() for db in dbs}
    train = read_jsonl(os.path.join(src, "train.jsonl"))
    evals = read_jsonl(os.path.join(src, "eval.jsonl"))
    for r in train:
        if (r["set"], r["db"]) in held:
            raise SystemExit(f"prepare: {src}/train.jsonl holds turns of held-out database {r['set']}/{r['db']} "
                             f"(training/agent_split.json); write it again with bench/agenttraj")
    for r in evals:
        if (r["set"], r["db"]) not in held:
            raise SystemExit(f"prepare: {src}/eval.jsonl holds database {r['set']}/{r['db']}, "
                             "which neither training/agent_split.json nor the run's heldout.json holds out")
    limit = d["max_tokens"]
    # prepare.tools: train only the turns that call these tools (the action
    # model's answer is written by kgforge from the query's result, so its
    # answer turns teach it nothing it uses); all turns when unset.
    tools = d.get("tools")
    picked = [r for r in train if not tools or json.loads(r["completion"]).get("tool") in tools]
    keep = [{"source": r["set"], "db": r["db"], "id": f"{r['question_id']}#{r['turn']}",
             "prompt": r["prompt"], "completion": r["completion"]}
            for r in picked if approx_tokens(r["prompt"] + r["completion"]) <= limit]
    rng = random.Random(d["seed"])
    stream = []
    for _ in range(d.get("epochs", 1)):
        epoch = list(keep)
        rng.shuffle(epoch)
        stream += epoch
    os.makedirs(out, exist_ok=True)
    files = {"train.jsonl": write_jsonl(os.path.join(out, "train.jsonl"), stream),
             "eval_agent.jsonl": write_jsonl(os.path.join(out, "eval_agent.jsonl"), evals)}
    sets = sorted({r["source"] for r in keep})
    return {"files": files, "epochs": d.get("epochs", 1), "pairs": len(keep), "train_sources": {s: sum(1 for r in keep if r["source"] == s) for s in sets},
            "tools": tools or "all", "dropped_other_tools": len(train) - len(picked),
            "dropped_over_max_tokens": len(picked) - len(keep),
            "train_databases": sorted({f"{r['source']}/{r['db']}" for r in keep}),
            "eval_databases": sorted({f"{r['set']}/{r['db']}" for r in evals}),
            "licences": {s: LICENCES[s] for s in LICENCES}}
