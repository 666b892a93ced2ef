"""Write an ONNX graph of a BERT sentence encoder (all-MiniLM-L6-v2) from its
safetensors weights, with mean pooling and L2 normalisation in the graph.

Needs only numpy, safetensors and onnx: no torch. The graph takes input_ids
and attention_mask (int64, [batch, tokens]) and returns embeddings
([batch, hidden], unit length), the same computation as sentence-transformers'
Transformer -> Pooling(mean) -> Normalize modules.

    python scripts/bert_onnx.py MODEL_DIR OUT.onnx   (scripts/onnx.sh runs it)
"""

import json
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save
from safetensors.numpy import load_file


def build(model_dir):
    cfg = json.load(open(f"{model_dir}/config.json"))
    w = load_file(f"{model_dir}/model.safetensors")
    hidden, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    eps = cfg.get("layer_norm_eps", 1e-12)
    assert cfg.get("hidden_act", "gelu") == "gelu", cfg.get("hidden_act")
    head = hidden // heads
    nodes, inits = [], []
    count = [0]

    def name(p):
        count[0] += 1
        return f"{p}_{count[0]}"

    def const(arr, p="c"):
        n = name(p)
        inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(kind, ins, **attrs):
        out = name(kind.lower())
        nodes.append(helper.make_node(kind, ins, [out], **attrs))
        return out

    def linear(x, prefix):  # torch Linear: x @ W^T + b
        wt = const(w[prefix + ".weight"].T.copy(), prefix + ".wT")
        return op("Add", [op("MatMul", [x, wt]), const(w[prefix + ".bias"], prefix + ".b")])

    def layernorm(x, prefix):
        return op("LayerNormalization", [x, const(w[prefix + ".weight"]), const(w[prefix + ".bias"])],
                  axis=-1, epsilon=eps)

    # Embeddings: word + position + token type 0, then LayerNorm.
    ids, mask = "input_ids", "attention_mask"
    t = op("Gather", [op("Shape", [ids]), const(np.array(1, np.int64))], axis=0)
    pos = op("Range", [const(np.array(0, np.int64)), t, const(np.array(1, np.int64))])
    e = op("Add", [op("Gather", [const(w["embeddings.word_embeddings.weight"]), ids], axis=0),
                   op("Gather", [const(w["embeddings.position_embeddings.weight"]), pos], axis=0)])
    e = op("Add", [e, const(w["embeddings.token_type_embeddings.weight"][0])])
    h = layernorm(e, "embeddings.LayerNorm")

    # Additive attention mask [batch, 1, 1, tokens]: 0 where a token is, -1e4 on padding.
    maskf = op("Cast", [mask], to=TensorProto.FLOAT)
    bias = op("Mul", [op("Sub", [const(np.array(1, np.float32)), maskf]), const(np.array(-10000, np.float32))])
    bias = op("Unsqueeze", [bias, const(np.array([1, 2], np.int64))])
    split = const(np.array([0, 0, heads, head], np.int64))
    merge = const(np.array([0, 0, hidden], np.int64))
    scale = const(np.array(1 / np.sqrt(head), np.float32))

    def heads_of(x):  # [b, t, hidden] -> [b, heads, t, head]
        return op("Transpose", [op("Reshape", [x, split])], perm=[0, 2, 1, 3])

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        q = heads_of(linear(h, p + ".attention.self.query"))
        k = op("Transpose", [op("Reshape", [linear(h, p + ".attention.self.key"), split])], perm=[0, 2, 3, 1])
        v = heads_of(linear(h, p + ".attention.self.value"))
        s = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), bias])
        ctx = op("MatMul", [op("Softmax", [s], axis=-1), v])
        ctx = op("Reshape", [op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
        h = layernorm(op("Add", [linear(ctx, p + ".attention.output.dense"), h]), p + ".attention.output.LayerNorm")
        x = linear(h, p + ".intermediate.dense")  # exact GELU: x/2 (1 + erf(x/sqrt 2))
        g = op("Mul", [op("Mul", [x, const(np.array(0.5, np.float32))]),
                       op("Add", [op("Erf", [op("Div", [x, const(np.array(np.sqrt(2), np.float32))])]),
                                  const(np.array(1, np.float32))])])
        h = layernorm(op("Add", [linear(g, p + ".output.dense"), h]), p + ".output.LayerNorm")

    # Mean over real tokens, then unit length.
    m3 = op("Unsqueeze", [maskf, const(np.array([2], np.int64))])
    total = op("ReduceSum", [op("Mul", [h, m3]), const(np.array([1], np.int64))], keepdims=0)
    n = op("Max", [op("ReduceSum", [m3, const(np.array([1], np.int64))], keepdims=0), const(np.array(1e-9, np.float32))])
    mean = op("Div", [total, n])
    norm = op("Max", [op("ReduceL2", [mean, const(np.array([1], np.int64))], keepdims=1), const(np.array(1e-12, np.float32))])
    nodes.append(helper.make_node("Div", [mean, norm], ["embeddings"]))

    graph = helper.make_graph(
        nodes, "sentence_encoder",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "tokens"]),
         helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "tokens"])],
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", hidden])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="kgforge")
    model.ir_version = 8
    checker.check_model(model)
    return model


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: bert_onnx.py MODEL_DIR OUT.onnx")
    save(build(sys.argv[1]), sys.argv[2])
