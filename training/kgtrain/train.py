"""LoRA training of the base Gemma 3 270M on the prepared stream, on CPU.

One example a forward pass (no padding), gradients accumulated over
grad_accum examples, loss on the reply tokens only. A checkpoint (adapter,
optimiser, scheduler, RNG states, position in the stream, loss log) is
written every checkpoint_every_steps optimiser steps, atomically; `train`
resumes from the newest one, so an interrupted run goes on where it
stopped. One torch thread by default: on a shared 2-core machine a second
thread made every step wait for a core (14x slower, measured).
"""

import json
import math
import os
import random
import shutil
import time

BASE_DIR = "base-fp32"


def load_base(cfg):
    """The base model and tokenizer, dequantised from the GGUF once and
    kept as fp32 safetensors under the work directory."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    d = os.path.join(cfg["work"], BASE_DIR)
    if not os.path.exists(os.path.join(d, "config.json")):
        g = cfg["base_gguf"]
        tok = AutoTokenizer.from_pretrained(os.path.dirname(g), gguf_file=os.path.basename(g))
        model = AutoModelForCausalLM.from_pretrained(os.path.dirname(g), gguf_file=os.path.basename(g))
        tmp = d + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        # Dequantised already: saved as a plain fp32 model.
        model.hf_quantizer = None
        model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        os.replace(tmp, d)
    tok = AutoTokenizer.from_pretrained(d)
    model = AutoModelForCausalLM.from_pretrained(d, dtype="float32")
    return model, tok


def encode(tok, rec, max_tokens):
    p = tok(rec["prompt"], add_special_tokens=False)["input_ids"]
    c = tok(rec["completion"], add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    ids = [tok.bos_token_id] + p + c
    labels = [-100] * (1 + len(p)) + c
    if len(ids) > max_tokens:
        return None
    return ids, labels


def run_dir(cfg):
    """The run's directory under the work directory (train.run, "run" by default)."""
    return os.path.join(cfg["work"], cfg["train"].get("run", "run"))


def init_from(model, spec):
    """Starts the LoRA weights from a shipped adapter (a stage of training
    that goes on from an earlier one), checked against its SHA-256: a
    different file is refused, not trained on. Returns what was loaded."""
    import hashlib
    import subprocess
    from peft import set_peft_model_state_dict
    from safetensors.torch import load

    from . import REPO
    path = spec["path"]
    if spec.get("git"):
        # The adapter as that commit shipped it (export overwrites the file).
        where = f"{spec['git']}:{path}"
        raw = subprocess.run(["git", "-C", REPO, "show", where], capture_output=True, check=True).stdout
    else:
        where = path if os.path.isabs(path) else os.path.join(REPO, path)
        with open(where, "rb") as f:
            raw = f.read()
    got = hashlib.sha256(raw).hexdigest()
    if got != spec["sha256"]:
        raise SystemExit(f"train: init_adapter {where}: SHA-256 {got}, the config wants {spec['sha256']}")
    sd = {k: v.float() for k, v in load(raw).items()}
    res = set_peft_model_state_dict(model, sd)
    missing = [k for k in getattr(res, "missing_keys", []) if "lora_" in k]
    unexpected = list(getattr(res, "unexpected_keys", []))
    if missing or unexpected:
        raise SystemExit(f"train: init_adapter {where} does not fit the LoRA config: "
                         f"{len(missing)} missing, {len(unexpected)} unexpected (e.g. {(missing + unexpected)[:2]})")
    print(f"starting from {where} ({len(sd)} tensors)", flush=True)
    return {**spec, "tensors": len(sd)}


def latest_checkpoint(run):
    ck = os.path.join(run, "checkpoints")
    if not os.path.isdir(ck):
        return None
    steps = sorted(int(x.split("-")[1]) for x in os.listdir(ck) if x.startswith("step-"))
    return os.path.join(ck, f"step-{steps[-1]}") if steps else None


def train(cfg, threads=None, max_examples=None):
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model

    t = cfg["train"]
    threads = threads or t["threads"]
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    run = run_dir(cfg)
    os.makedirs(run, exist_ok=True)
    model, tok = load_base(cfg)
    model.config.use_cache = False
    ck = latest_checkpoint(run)
    if ck:
        model = PeftModel.from_pretrained(model, os.path.join(ck, "adapter"), is_trainable=True)
        with open(os.path.join(ck, "state.json")) as f:
            state = json.load(f)
        print(f"resuming from {ck}: {state['examples']} examples, step {state['step']}", flush=True)
    else:
        lc = LoraConfig(r=t["lora_r"], lora_alpha=t["lora_alpha"], lora_dropout=t["lora_dropout"],
                        target_modules=t["target_modules"], task_type="CAUSAL_LM")
        torch.manual_seed(t["seed"])
        model = get_peft_model(model, lc)
        state = {"examples": 0, "step": 0, "losses": [], "skipped": 0, "seconds": 0.0, "tokens": 0}
        if t.get("init_adapter"):
            state["init_adapter"] = init_from(model, t["init_adapter"])
    # Each start or resume, with the threads it ran with, for the manifest.
    state.setdefault("sessions", []).append({"from_examples": state["examples"], "threads": threads,
                                             "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=t["lr"], weight_decay=0.0)
    total_steps = max(1, t["planned_examples"] // t["grad_accum"])

    def lr_at(step):
        if step < t["warmup_steps"]:
            return (step + 1) / t["warmup_steps"]
        prog = min(1.0, (step - t["warmup_steps"]) / max(1, total_steps - t["warmup_steps"]))
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * prog))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    if ck:
        opt.load_state_dict(torch.load(os.path.join(ck, "optimizer.pt")))
        sched.load_state_dict(torch.load(os.path.join(ck, "scheduler.pt")))
        torch.set_rng_state(torch.load(os.path.join(ck, "rng.pt")))
    with open(os.path.join(cfg["work"], "data", "train.jsonl")) as f:
        stream = [json.loads(l) for l in f]
    stop = len(stream) if max_examples is None else min(len(stream), state["examples"] + max_examples)
    stop = min(stop, t["planned_examples"])
    model.train()
    acc, acc_loss, acc_n, t0 = 0, 0.0, 0, time.time()
    i = state["examples"]
    while i < stop:
        enc = encode(tok, stream[i], t["max_tokens"])
        i += 1
        if enc is None:
            state["skipped"] += 1
            continue
        ids, labels = enc
        x = torch.tensor([ids])
        y = torch.tensor([labels])
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=t["bf16"]):
            out = model(input_ids=x, labels=y)
        # loss "example": each example weighs the same (the mean over its
        # reply tokens); "token": each reply token does, so long lists of
        # facts weigh more. Measured: "token" made the model repeat fact
        # lines until its bound (docs/benchmarks.md, "kgforge-extract").
        w = 1.0
        if t["loss"] == "token":
            w = sum(1 for v in labels if v != -100) / t["tokens_per_example"]
        (out.loss * w / t["grad_accum"]).backward()
        acc += 1
        acc_loss += out.loss.item()
        acc_n += 1
        state["tokens"] += len(ids)
        if acc == t["grad_accum"] or i == stop:
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            state["step"] += 1
            state["examples"] = i
            dt = time.time() - t0
            state["seconds"] += dt
            t0 = time.time()
            loss = acc_loss / max(1, acc_n)
            state["losses"].append({"step": state["step"], "examples": i, "loss": round(loss, 4),
                                    "lr": sched.get_last_lr()[0], "seconds": round(state["seconds"], 1)})
            print(json.dumps(state["losses"][-1]), flush=True)
            acc, acc_loss, acc_n = 0, 0.0, 0
            if state["step"] % t["checkpoint_every_steps"] == 0 or i == stop:
                save_checkpoint(run, model, opt, sched, state, torch)
    state["examples"] = i
    save_checkpoint(run, model, opt, sched, state, torch)


def save_checkpoint(run, model, opt, sched, state, torch):
    ck = os.path.join(run, "checkpoints")
    os.makedirs(ck, exist_ok=True)
    final = os.path.join(ck, f"step-{state['step']}")
    tmp = final + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    model.save_pretrained(os.path.join(tmp, "adapter"))
    torch.save(opt.state_dict(), os.path.join(tmp, "optimizer.pt"))
    torch.save(sched.state_dict(), os.path.join(tmp, "scheduler.pt"))
    torch.save(torch.get_rng_state(), os.path.join(tmp, "rng.pt"))
    with open(os.path.join(tmp, "state.json"), "w") as f:
        json.dump(state, f)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    # Keep the three newest.
    steps = sorted(int(x.split("-")[1]) for x in os.listdir(ck) if x.startswith("step-") and not x.endswith(".tmp"))
    for s in steps[:-3]:
        shutil.rmtree(os.path.join(ck, f"step-{s}"), ignore_errors=True)
