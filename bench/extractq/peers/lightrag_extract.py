"""Runs LightRAG's own extraction on bench items, as its users run it.

One fresh LightRAG per item (its default storages: JSON KV, NanoVectorDB,
NetworkX graph, in a working folder of its own), the Ollama binding
(lightrag.llm.ollama: ollama_model_complete for the chat model, ollama_embed
for the embedding model), every extraction setting at LightRAG's defaults
(delimiter-format prompt, one gleaning turn, its entity types); only the
bench's output bound (num_predict, the same as kgforge's), the context
window and the call timeout are set. The item's
text goes in through rag.ainsert, and its entities and relations are read
back from the graph storage. Ollama is reached through the counting proxy.

  python lightrag_extract.py --in items.jsonl --out lightrag.jsonl --model gemma3:270m
"""

import asyncio
import importlib.metadata
import logging
import os
import shutil
from functools import partial

from lightrag import LightRAG
from lightrag.llm.ollama import ollama_embed, ollama_model_complete
from lightrag.utils import EmbeddingFunc

import common

VERSION = importlib.metadata.version("lightrag-hku")


async def extract(args, item, url, workdir):
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    rag = LightRAG(
        working_dir=workdir,
        llm_model_func=ollama_model_complete,
        llm_model_name=args.model,
        # Its default (240 s, doubled for the worker) is for a server of
        # its own; a shared server on two cores queues calls past it.
        default_llm_timeout=1800,
        llm_model_kwargs={"host": url, "timeout": 1800,
                          "options": {"num_ctx": args.num_ctx, "num_predict": args.num_predict}},
        embedding_func=EmbeddingFunc(embedding_dim=args.embed_dim, max_token_size=512,
                                     func=partial(ollama_embed.func, embed_model=args.embed_model, host=url)),
    )
    await rag.initialize_storages()
    try:
        await rag.ainsert(item["text"], ids=[item["id"]])
        status = await rag.doc_status.get_by_id(item["id"])
        if status and str(status.get("status", "")).lower().endswith("failed"):
            raise RuntimeError("lightrag marked the document failed: " + str(status.get("error_msg", ""))[:500])
        nodes = await rag.chunk_entity_relation_graph.get_all_nodes()
        edges = await rag.chunk_entity_relation_graph.get_all_edges()
    finally:
        await rag.finalize_storages()
    entities = [{"name": n.get("entity_id") or n["id"], "type": n.get("entity_type", "")} for n in nodes]
    relations = [{"subject": e["source"], "predicate": e.get("keywords", ""), "object": e["target"],
                  "description": e.get("description", "")} for e in edges]
    return entities, relations


def main():
    args = common.parse_args("lightrag")
    logging.getLogger("lightrag").setLevel(logging.WARNING)
    key = ("entity_extract_max_gleaning", os.environ.get("MAX_GLEANING", "default"))

    def one(item, url, workdir):
        return asyncio.run(extract(args, item, url, workdir))

    common.run("lightrag", VERSION, args, key, one)


if __name__ == "__main__":
    main()
