"""Names per second of a sentence encoder through ONNX Runtime (and, with
--st, through sentence-transformers), on the names bench/embed samples.

    python ort_bench.py --names SAMPLE.txt --model minilm.onnx --tokenizer MODEL_DIR/tokenizer.json \
        [--batches 1,16,64,256] [--threads 2] [--ollama SAMPLE.f32] [--st MODEL_DIR] [--out results.jsonl]

Names are sorted by length into batches (padding to the longest in a batch);
vectors come back in the input order. With --ollama, prints the cosine of
each name's vector with Ollama's (min, mean, 1st percentile).
"""

import argparse
import json
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def report(out, rec):
    line = json.dumps(rec)
    print(line, flush=True)
    if out:
        with open(out, "a") as f:
            f.write(line + "\n")


def encode_all(sess, tok, names, batch, max_len=256):
    order = sorted(range(len(names)), key=lambda i: len(names[i]))
    out = np.zeros((len(names), 384), np.float32)
    for s in range(0, len(order), batch):
        idx = order[s:s + batch]
        enc = tok.encode_batch([names[i] for i in idx])
        t = min(max(len(e.ids) for e in enc), max_len)
        ids = np.zeros((len(idx), t), np.int64)
        mask = np.zeros((len(idx), t), np.int64)
        for k, e in enumerate(enc):
            n = min(len(e.ids), t)
            ids[k, :n] = e.ids[:n]
            mask[k, :n] = 1
        out[idx] = sess.run(["embeddings"], {"input_ids": ids, "attention_mask": mask})[0]
    return out


def agreement(a, b, names):
    """Cosine of each name's two vectors: over all names, and over the names
    that are plain ASCII (Ollama does not strip accents, the model's
    tokenizer does)."""
    cos = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    ascii_ = np.array([n.isascii() for n in names])
    low = cos < 0.9999
    return {"cos_min": float(cos.min()), "cos_p01": float(np.percentile(cos, 1)), "cos_mean": float(cos.mean()),
            "below_0.9999": int(low.sum()), "below_0.9999_ascii": int((low & ascii_).sum()),
            "cos_min_ascii": float(cos[ascii_].min()), "non_ascii": int((~ascii_).sum())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--batches", default="1,16,64,256")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--spin", action="store_true", help="let ORT's threads spin (its default)")
    ap.add_argument("--ollama")
    ap.add_argument("--st")
    ap.add_argument("--label", default="")
    ap.add_argument("--save", help="write the ONNX vectors of the last batch size here (float32 rows)")
    ap.add_argument("--out")
    a = ap.parse_args()
    names = open(a.names).read().split("\n")[:-1]
    ref = np.fromfile(a.ollama, np.float32).reshape(len(names), -1) if a.ollama else None
    tok = Tokenizer.from_file(a.tokenizer)
    tok.no_padding()
    tok.enable_truncation(256)
    so = ort.SessionOptions()
    so.intra_op_num_threads = a.threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "1" if a.spin else "0")
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    encode_all(sess, tok, names[:64], 64)  # warm up
    for b in [int(x) for x in a.batches.split(",")]:
        rec = {"runtime": f"onnxruntime {ort.__version__}", "label": a.label, "model": a.model.rsplit("/", 1)[-1],
               "names": len(names), "batch": b, "threads": a.threads, "spin": a.spin, "load_before": loadavg()}
        t0, c0 = time.time(), time.process_time()
        vecs = encode_all(sess, tok, names, b)
        rec["seconds"] = time.time() - t0
        rec["cpu_s"] = time.process_time() - c0
        rec["names_per_cpu_s"] = len(names) / rec["cpu_s"]
        rec["names_per_s"] = len(names) / rec["seconds"]
        rec["load_after"] = loadavg()
        if ref is not None:
            rec.update(agreement(vecs, ref, names))
        report(a.out, rec)
    if a.save:
        vecs.tofile(a.save)
    if a.st:
        import torch
        from sentence_transformers import SentenceTransformer
        torch.set_num_threads(a.threads)
        st = SentenceTransformer(a.st, device="cpu")
        st.encode(names[:64])
        for b in [int(x) for x in a.batches.split(",")]:
            rec = {"runtime": "sentence-transformers", "label": a.label, "names": len(names), "batch": b,
                   "threads": a.threads, "load_before": loadavg()}
            t0, c0 = time.time(), time.process_time()
            vecs = st.encode(names, batch_size=b, normalize_embeddings=True)
            rec["seconds"] = time.time() - t0
            rec["cpu_s"] = time.process_time() - c0
            rec["names_per_cpu_s"] = len(names) / rec["cpu_s"]
            rec["names_per_s"] = len(names) / rec["seconds"]
            rec["load_after"] = loadavg()
            if ref is not None:
                rec.update(agreement(vecs, ref, names))
            if a.save:
                rec.update({"vs_ort_" + k: v for k, v in agreement(vecs, np.fromfile(a.save, np.float32).reshape(len(names), -1), names).items()})
            report(a.out, rec)


if __name__ == "__main__":
    main()
