"""python -m kgtrain {prepare,train,export,evaluate} --config training/extract.json"""

import argparse
import json
import os
import sys


def load_config(path):
    with open(path) as f:
        cfg = json.load(f)
    for k in ("work", "base_gguf"):
        cfg[k] = os.path.expanduser(cfg[k])
    return cfg


def main(argv=None):
    ap = argparse.ArgumentParser(prog="kgtrain", description=__doc__)
    ap.add_argument("command", choices=["prepare", "train", "export", "evaluate"])
    ap.add_argument("--config", default="training/extract.json")
    ap.add_argument("--threads", type=int, help="torch threads (default: the config's, 1)")
    ap.add_argument("--max-examples", type=int, help="stop training after this many examples (resume later)")
    ap.add_argument("--checkpoint", help="evaluate or export this checkpoint directory (default: the latest)")
    ap.add_argument("--note", help="export: a line for the manifest (how the run went)")
    ap.add_argument("--model", help="evaluate: the Ollama model to ask (default: kgforge-extract)")
    ap.add_argument("--sets", default="webnlg,tekgen,redocred,synthetic", help="evaluate: which held-out sets")
    ap.add_argument("--n", type=int, default=0, help="evaluate: at most n items a set (0: all)")
    ap.add_argument("--out", help="evaluate: write results here (JSON)")
    a = ap.parse_args(argv)
    cfg = load_config(a.config)
    if a.command == "prepare":
        from .prepare import prepare
        if cfg.get("task") == "agent":
            from .agent import prepare_agent as prepare
        m = prepare(cfg, os.path.join(cfg["work"], "data"))
        with open(os.path.join(cfg["work"], "data", "manifest.json"), "w") as f:
            json.dump(m, f, indent=2)
        json.dump(m, sys.stdout, indent=2)
        print()
    elif a.command == "train":
        from .train import train
        train(cfg, threads=a.threads, max_examples=a.max_examples)
    elif a.command == "export":
        from .export import export
        export(cfg, a.checkpoint, a.note)
    elif a.command == "evaluate":
        from .evaluate import evaluate
        evaluate(cfg, a.model or "kgforge-extract", a.sets.split(","), a.n, a.out)


if __name__ == "__main__":
    main()
