"""Runs Microsoft GraphRAG's own graph extraction on bench items.

GraphRAG is configured the way its users point it at Ollama: a settings.yaml
whose completion model is the "openai" provider (through LiteLLM, as
`graphrag index` does) with api_base at Ollama's OpenAI-compatible endpoint
(/v1), every extract_graph and summarize_descriptions setting at GraphRAG's
defaults (its prompt, entity types, one gleaning), and its JSON file cache;
only the bench's output bound (max_tokens, the same as kgforge's) and the
call timeout (LiteLLM's 600 s, then retries, is shorter than a queued call
on a shared two-core server) are set.
Each item is one text unit (every bench item is shorter than GraphRAG's
default 1,200-token chunk), run through the same steps as the extract_graph
workflow of `graphrag index`: graph extraction, then description
summarisation. The workflow stops the whole index when a text yields no
entity or no relationship; here that item is recorded with what it yielded.
Ollama is reached through the counting proxy.

  python graphrag_extract.py --in items.jsonl --out graphrag.jsonl --model gemma3:270m
"""

import asyncio
import importlib.metadata
import logging
import os

import pandas as pd
import yaml
from graphrag.cache.cache_key_creator import cache_key_creator
from graphrag.callbacks.noop_workflow_callbacks import NoopWorkflowCallbacks
from graphrag.config.load_config import load_config
from graphrag.index.operations.extract_graph.extract_graph import extract_graph as extractor
from graphrag.index.workflows.extract_graph import get_summarized_entities_relationships
from graphrag_cache import create_cache
from graphrag_llm.completion import create_completion

import common

VERSION = importlib.metadata.version("graphrag")


def settings(args, url, root):
    def model(name, extra=None):
        m = {"model_provider": "openai", "model": name, "api_base": url + "/v1", "api_key": "ollama",
             "retry": {"type": "exponential_backoff"}}
        m.update(extra or {})
        return m

    return {
        "completion_models": {"default_completion_model": model(args.model, {"call_args": {"max_tokens": args.num_predict, "timeout": 1800}})},
        "embedding_models": {"default_embedding_model": model(args.embed_model)},
        "cache": {"type": "json", "storage": {"type": "file", "base_dir": os.path.join(root, "cache")}},
        "output_storage": {"type": "file", "base_dir": os.path.join(root, "output")},
        "concurrent_requests": 1,
    }


async def extract(config, item):
    cache = create_cache(config.cache)
    ex_cfg = config.extract_graph
    ex_model = create_completion(config.get_completion_model_config(ex_cfg.completion_model_id),
                                 cache=cache.child(ex_cfg.model_instance_name), cache_key_creator=cache_key_creator)
    sum_cfg = config.summarize_descriptions
    sum_model = create_completion(config.get_completion_model_config(sum_cfg.completion_model_id),
                                  cache=cache.child(sum_cfg.model_instance_name), cache_key_creator=cache_key_creator)
    callbacks = NoopWorkflowCallbacks()
    units = pd.DataFrame([{"id": item["id"], "text": item["text"]}])
    entities, relationships = await extractor(
        text_units=units, callbacks=callbacks, text_column="text", id_column="id", model=ex_model,
        prompt=ex_cfg.resolved_prompts().extraction_prompt, entity_types=ex_cfg.entity_types,
        max_gleanings=ex_cfg.max_gleanings, num_threads=config.concurrent_requests, async_type=config.async_mode)
    if len(entities) > 0 and len(relationships) > 0:
        entities, relationships = await get_summarized_entities_relationships(
            extracted_entities=entities, extracted_relationships=relationships, callbacks=callbacks,
            model=sum_model, max_summary_length=sum_cfg.max_length, max_input_tokens=sum_cfg.max_input_tokens,
            summarization_prompt=sum_cfg.resolved_prompts().summarize_prompt, num_threads=config.concurrent_requests)
    ents = [{"name": str(r["title"]), "type": str(r.get("type", ""))} for _, r in entities.iterrows()]
    rels = []
    for _, r in relationships.iterrows():
        d = r.get("description", "")
        if isinstance(d, list):
            d = " ".join(str(x) for x in d)
        rels.append({"subject": str(r["source"]), "predicate": str(d), "object": str(r["target"]), "description": str(d)})
    return ents, rels


def main():
    args = common.parse_args("graphrag")
    logging.getLogger("graphrag").setLevel(logging.WARNING)
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)
    root = os.path.join(args.work, "graphrag", "project")
    os.makedirs(root, exist_ok=True)

    def one(item, url, workdir):
        with open(os.path.join(root, "settings.yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump(settings(args, url, root), f)
        return asyncio.run(extract(load_config(root), item))

    common.run("graphrag", VERSION, args, (), one)


if __name__ == "__main__":
    main()
