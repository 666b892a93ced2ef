#!/usr/bin/env python3
"""Merge a LoRA adapter into a GGUF model and write a new GGUF, with numpy
and the gguf package alone (no torch): how kgforge's set-up builds its own
models (kgforge-extract) from the base GGUF and the committed adapter.

  merge_adapter.py --base BASE.gguf --adapter models/kgforge-extract --out OUT.gguf

The adapter directory holds adapter.safetensors (lora_A/lora_B pairs, fp16,
PEFT's names) and manifest.json (rank, alpha, base GGUF SHA-256, the name to
write into the GGUF). Every metadata key of the base is copied (its
tokenizer included: a tokenizer rebuilt from anywhere else broke the
model); general.name and kgforge.prompt are set, so kgforge recognises the
model as its specialist. A tensor the adapter changes is dequantised,
W + (alpha/r)·B·A is added in float64 (elementwise, in a fixed order), and
the sum is written as Q8_0 (a
4-bit re-quantisation undid the fine-tune, measured); every other tensor is
copied byte for byte. The output's bytes depend only on the inputs, so its
SHA-256 can be checked against the manifest.
"""

import argparse
import hashlib
import json
import os
import struct
import sys

import numpy as np

try:
    import gguf
except ImportError:  # pragma: no cover - set-up installs it
    sys.exit("merge_adapter.py: the python package gguf is required (pip install gguf)")

# PEFT module names → GGUF tensor names (llama.cpp's gemma3 layout).
MODULES = {
    "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}
DTYPES = {"F16": np.float16, "F32": np.float32}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def read_safetensors(path):
    """name → numpy array; F16 and F32 only, bounds checked."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        raw = f.read(8)
        if len(raw) != 8:
            raise ValueError(f"{path}: not a safetensors file (shorter than its header length)")
        (n,) = struct.unpack("<Q", raw)
        if n > min(size - 8, 1 << 24):
            raise ValueError(f"{path}: header length {n} is larger than the file allows")
        header = json.loads(f.read(n))
        base = 8 + n
        out = {}
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            dt = DTYPES.get(meta.get("dtype"))
            if dt is None:
                raise ValueError(f"{path}: tensor {name}: dtype {meta.get('dtype')} (want F16 or F32)")
            lo, hi = meta["data_offsets"]
            shape = meta["shape"]
            count = int(np.prod(shape)) if shape else 1
            if not (0 <= lo <= hi and base + hi <= size and hi - lo == count * np.dtype(dt).itemsize):
                raise ValueError(f"{path}: tensor {name}: offsets {lo}..{hi} do not fit its shape {shape} or the file")
            f.seek(base + lo)
            out[name] = np.frombuffer(f.read(hi - lo), dtype=dt).reshape(shape)
    return out


def deltas(adapter, scale):
    """GGUF tensor name → (A, B) of the adapter."""
    pairs = {}
    for name, arr in adapter.items():
        # base_model.model.model.layers.{i}.{module}.lora_{A,B}.weight
        parts = name.split(".")
        try:
            li = parts.index("layers")
            layer = int(parts[li + 1])
            module = ".".join(parts[li + 2:li + 4])
            ab = parts[li + 4]
        except (ValueError, IndexError):
            raise ValueError(f"adapter tensor {name}: not a LoRA weight of a decoder layer")
        if module not in MODULES or ab not in ("lora_A", "lora_B"):
            raise ValueError(f"adapter tensor {name}: module {module} is not one kgforge merges")
        pairs.setdefault(f"blk.{layer}.{MODULES[module]}.weight", {})[ab] = arr
    for k, v in pairs.items():
        if set(v) != {"lora_A", "lora_B"}:
            raise ValueError(f"adapter: {k} lacks its lora_A or lora_B")
    return {k: (v["lora_A"], v["lora_B"]) for k, v in pairs.items()}


def lora_delta(A, B, scale):
    """scale · B·A in float64 as a sum of rank-one outer products in a
    fixed order: elementwise IEEE arithmetic only, so the same bytes on
    every CPU (a BLAS matmul may sum in another order on another CPU, and
    the merged file's digest is checked)."""
    A = A.astype(np.float64)
    B = B.astype(np.float64)
    delta = np.zeros((B.shape[0], A.shape[1]), dtype=np.float64)
    for k in range(A.shape[0]):
        delta += np.multiply.outer(B[:, k], A[k, :])
    return scale * delta


def merge(base, adapter_dir, out, name=None):
    with open(os.path.join(adapter_dir, "manifest.json")) as f:
        man = json.load(f)
    want = man["base"]["sha256"]
    got = sha256(base)
    if got != want:
        raise ValueError(f"base {base}: sha256 {got}, the adapter was trained on {want}")
    ad_path = os.path.join(adapter_dir, "adapter.safetensors")
    if sha256(ad_path) != man["adapter"]["sha256"]:
        raise ValueError(f"adapter {ad_path}: sha256 differs from its manifest")
    scale = man["adapter"]["lora_alpha"] / man["adapter"]["lora_r"]
    d = deltas(read_safetensors(ad_path), scale)
    reader = gguf.GGUFReader(base)
    arch = reader.fields["general.architecture"].contents()
    writer = gguf.GGUFWriter(out + ".tmp", arch=arch)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        if field.name in (gguf.Keys.General.NAME, "kgforge.prompt"):
            continue
        vt = field.types[0]
        sub = field.types[-1] if vt == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), vt, sub_type=sub)
    writer.add_key_value(gguf.Keys.General.NAME, name or man["name"], gguf.GGUFValueType.STRING)
    writer.add_key_value("kgforge.prompt", man["prompt"], gguf.GGUFValueType.STRING)
    seen = set()
    for t in reader.tensors:
        if t.name in d:
            A, B = d[t.name]
            w = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float64)
            delta = lora_delta(A, B, scale)
            if delta.shape != w.shape:
                raise ValueError(f"{t.name}: adapter delta {delta.shape} != base {w.shape}")
            q = gguf.quants.quantize((w + delta).astype(np.float32), gguf.GGMLQuantizationType.Q8_0)
            writer.add_tensor(t.name, q, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
            seen.add(t.name)
        else:
            writer.add_tensor(t.name, t.data, raw_dtype=t.tensor_type)
    missing = set(d) - seen
    if missing:
        raise ValueError(f"adapter names tensors the base lacks: {sorted(missing)[:3]}")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(out + ".tmp", out)
    return sha256(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--adapter", required=True, help="directory with adapter.safetensors and manifest.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--check", action="store_true", help="fail unless the output's sha256 is the manifest's merged.sha256")
    a = ap.parse_args()
    try:
        digest = merge(a.base, a.adapter, a.out)
    except (ValueError, KeyError, OSError) as e:
        sys.exit(f"merge_adapter.py: {e}")
    print(digest)
    if a.check:
        with open(os.path.join(a.adapter, "manifest.json")) as f:
            want = json.load(f).get("merged", {}).get("sha256")
        if digest != want:
            sys.exit(f"merge_adapter.py: merged {a.out} has sha256 {digest}, the manifest says {want}")


if __name__ == "__main__":
    main()
