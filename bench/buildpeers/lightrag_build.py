"""LightRAG's first build of a set of documents, as its users run it.

One fresh LightRAG (its default storages: JSON KV, NanoVectorDB, NetworkX
graph) in an empty working folder, the Ollama binding
(lightrag.llm.ollama: ollama_model_complete for the chat model, ollama_embed
for the embedding model), every extraction setting at LightRAG's defaults;
only the output bound (num_predict, kgforge's 512), the context window and
the call timeouts are set, as in bench/extractq/peers/lightrag_extract.py,
and the threads per call (num_thread, --num-thread, default
KGFORGE_NUM_THREAD): the same option kgforge sends, so both builders get the
same server settings. It goes with every chat and every embedding request.
All documents go in through one rag.ainsert; the entities and relations are
read back from the graph storage. Ollama is reached through the counting
proxy of bench/extractq/peers (calls and tokens as Ollama reports them).

  python lightrag_build.py --out lightrag.json --work DIR FILE...
"""

import argparse
import asyncio
import importlib.metadata
import json
import logging
import os
import shutil
import sys
import time
from functools import partial

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "extractq", "peers"))

import common  # noqa: E402  (sets TIKTOKEN_CACHE_DIR before lightrag loads tiktoken)
import llmproxy  # noqa: E402
from lightrag import LightRAG  # noqa: E402
from lightrag.llm.ollama import ollama_embed, ollama_model_complete  # noqa: E402
from lightrag.utils import EmbeddingFunc  # noqa: E402

assert common  # imported for its side effect


async def build(args, texts, names, url):
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    opts = {"num_ctx": args.num_ctx, "num_predict": args.num_predict}
    embed_opts = {}
    if args.num_thread:
        opts["num_thread"] = embed_opts["num_thread"] = args.num_thread
    rag = LightRAG(
        working_dir=args.work,
        llm_model_func=ollama_model_complete,
        llm_model_name=args.model,
        default_llm_timeout=3600,
        llm_model_kwargs={"host": url, "timeout": 3600, "options": opts},
        embedding_func=EmbeddingFunc(embedding_dim=args.embed_dim, max_token_size=512,
                                     func=partial(ollama_embed.func, embed_model=args.embed_model, host=url,
                                                  options=embed_opts)),
    )
    await rag.initialize_storages()
    try:
        await rag.ainsert(texts, ids=names, file_paths=names)
        failed = []
        for n in names:
            st = await rag.doc_status.get_by_id(n)
            if st and str(st.get("status", "")).lower().endswith("failed"):
                failed.append(f"{n}: {str(st.get('error_msg', ''))[:300]}")
        nodes = await rag.chunk_entity_relation_graph.get_all_nodes()
        edges = await rag.chunk_entity_relation_graph.get_all_edges()
    finally:
        await rag.finalize_storages()
    return nodes, edges, failed


def num_thread_from_env():
    v = os.environ.get("KGFORGE_NUM_THREAD", "").strip()
    if not v:
        return 0
    if not v.isdigit() or int(v) < 1:
        sys.exit(f"KGFORGE_NUM_THREAD={v!r}: want a number of threads, 1 or more")
    return int(v)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--out", required=True)
    p.add_argument("--work", required=True, help="LightRAG's working folder (emptied first)")
    p.add_argument("--model", default="gemma3:270m")
    p.add_argument("--embed-model", default="all-minilm:l6-v2")
    p.add_argument("--embed-dim", type=int, default=384)
    p.add_argument("--num-predict", type=int, default=512)
    p.add_argument("--num-ctx", type=int, default=8192)
    p.add_argument("--num-thread", type=int, default=num_thread_from_env(),
                   help="Ollama's num_thread for every call (default KGFORGE_NUM_THREAD; 0: the server's default)")
    args = p.parse_args()
    logging.getLogger("lightrag").setLevel(logging.WARNING)
    texts = [open(f, encoding="utf-8").read() for f in args.files]
    names = [os.path.basename(f) for f in args.files]
    proxy = llmproxy.Proxy()
    start = time.monotonic()
    try:
        nodes, edges, failed = asyncio.run(build(args, texts, names, proxy.url))
    finally:
        proxy.close()
    seconds = time.monotonic() - start
    rels = [(e["source"], e["target"]) for e in edges]
    rec = {"system": "lightrag", "version": importlib.metadata.version("lightrag-hku"), "model": args.model,
           "documents": names, "seconds": round(seconds, 1), **proxy.counters.snapshot(),
           "num_thread_sent": proxy.counters.num_thread,
           "entities": len(nodes), "relations": len(rels), "failed": failed, "relation_list": rels}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(rec, f, indent=1)
    print(json.dumps({k: v for k, v in rec.items() if k != "relation_list"}))


if __name__ == "__main__":
    main()
