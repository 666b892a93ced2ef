"""The split holds: nothing held out reaches the training stream, and the
synthetic passages use no name of kgforge's example corpus. Runs with the
standard library and pytest (make test runs it; no torch)."""

import glob
import json
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "training"))

from kgtrain import prepare, synth, synth_general  # noqa: E402
from kgtrain.prompt import parse_facts, render_facts  # noqa: E402

DATA = os.path.join(REPO, "..", "shared", "benchmarks")


def read(path):
    with open(path) as f:
        return [json.loads(l) for l in f]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    if not os.path.isdir(os.path.join(DATA, "redocred")):
        pytest.skip(f"no benchmarks at {DATA}")
    with open(os.path.join(REPO, "training", "extract.json")) as f:
        cfg = json.load(f)
    cfg["data"] = DATA
    cfg["split"] = os.path.join(REPO, "training", "split.json")
    cfg["prepare"]["synthetic"] = 200
    cfg["prepare"]["general"] = 200
    cfg["prepare"]["train_examples"] = 3000
    out = str(tmp_path_factory.mktemp("data"))
    man = prepare.prepare(cfg, out)
    return cfg, out, man


def test_nothing_held_out_is_trained_on(prepared):
    cfg, out, man = prepared
    split = prepare.load_split(cfg["split"])
    train = read(os.path.join(out, "train.jsonl"))
    # Every source the config weighs reaches the stream (a weight of 0
    # leaves a source out: stage 4 trained without TekGen).
    weighed = {k for k, w in cfg["prepare"]["weights"].items() if w > 0}
    assert {r["source"] for r in train} == weighed
    # The pools hold nothing held out, whether or not the stream draws on them.
    for x in prepare.tekgen_examples(cfg["data"], split, heldout=False):
        assert x["ontology"] not in split["tekgen_heldout_ontologies"], x["id"]
    for r in train:
        if r["source"] == "redocred":
            assert not prepare.redocred_heldout(r["doc"], split), r["doc"]
        if r["source"] == "tekgen":
            assert r["ontology"] not in split["tekgen_heldout_ontologies"], r["id"]
    held = set()
    for name in ("eval_webnlg.jsonl", "eval_tekgen.jsonl", "eval_redocred.jsonl", "eval_synthetic.jsonl",
                 "eval_general.jsonl"):
        rows = read(os.path.join(out, name))
        assert rows, name
        held |= {" ".join(x["passage"].split()) for x in rows}
    for r in train:
        passage = r["prompt"].split("\nPassage: ", 1)[1].rsplit("\nFacts:", 1)[0]
        assert passage not in held, passage[:80]
    for r in read(os.path.join(out, "eval_redocred.jsonl")):
        assert prepare.redocred_heldout(r["doc"], split)
    for r in read(os.path.join(out, "eval_tekgen.jsonl")):
        assert r["ontology"] in split["tekgen_heldout_ontologies"]


def test_synthetic_names_are_not_the_examples():
    """No name the synthetic passages use is a word of the example corpus
    (its gold folder, written about the corpus, is not part of it)."""
    words = set()
    for path in glob.glob(os.path.join(REPO, "examples", "bikeco", "**", "*"), recursive=True):
        if os.path.isfile(path) and os.sep + "gold" + os.sep not in path:
            with open(path, errors="ignore") as f:
                words |= set(re.findall(r"\b[A-Z][a-zA-Z]+\b", f.read()))
    # The proper names: people, cities, and every company or product
    # stem the syllable pools can make (materials, months, roles and legal
    # forms are common words the corpus shares with any business text).
    names = set(synth.FIRST + synth.LAST + [c for c, _ in synth.CITIES])
    names |= {a + b for a in synth.SYL_A for b in synth.SYL_B}
    names |= set(synth_general.TITLE_N)  # the nouns of work titles
    assert not names & words, sorted(names & words)


def test_synthetic_train_and_eval_names_are_disjoint():
    def names(split):
        out = set()
        for _, _, _, facts in synth.generate(300, 1, split):
            for s, _, _, o, _ in facts:
                out |= {s, o}
        return out
    people = lambda ns: {n for n in ns if n.split()[0] in synth.FIRST}
    assert not people(names("train")) & people(names("eval"))


def test_facts_round_trip():
    facts = [("A | B", "Organization", "supplies", "C", "Product"), ("D", "Person", "works for", "E", "Organization")]
    got, bad = parse_facts(render_facts(facts))
    assert bad == 0
    assert got == [("A / B", "Organization", "supplies", "C", "Product"), facts[1]]


def test_synthetic_facts_are_written_in_their_passage():
    for passage, _, _, facts in synth.generate(300, 3, "train"):
        for s, _, _, o, _ in facts:
            assert s.lower() in passage.lower(), (s, passage)
            assert o.lower() in passage.lower(), (o, passage)


def test_a_window_with_a_schema_lists_its_facts_predicates_as_it_writes_them():
    """Re-DocRED windows given a predicate list (as a pipeline with an
    ontology sends one): every fact's predicate is in the list, spelled
    as the list spells it, and the list holds others beside them."""
    import random
    x = {"source": "redocred", "doc": 1, "sents": [0, 1], "passage": "Ana Lind was born in Oslo, Norway.",
         "types": None, "predicates": None,
         "facts": [("Ana Lind", "Person", "place of birth", "Oslo", "Location"),
                   ("Oslo", "Location", "country", "Norway", "Location")]}
    names = ["place of birth", "country", "date of birth", "member of", "located in", "author", "spouse",
             "capital of", "genre", "publisher"]
    styles = set()
    for seed in range(40):
        y = prepare.with_schema(x, names, random.Random(seed))
        assert len(y["predicates"]) >= len({f[2] for f in x["facts"]}) + 2
        for f in y["facts"]:
            assert f[2] in y["predicates"], (f, y["predicates"])
        assert [(f[0], f[3]) for f in y["facts"]] == [(f[0], f[3]) for f in x["facts"]]
        styles.add(y["facts"][0][2])
    assert {"place of birth", "placeOfBirth", "place_of_birth", "PLACE_OF_BIRTH", "birthPlace", "bornIn"} == styles
    # A list with aliases names no relation twice.
    for seed in range(40):
        y = prepare.with_schema(x, names, random.Random(seed))
        assert len(set(y["predicates"])) == len(y["predicates"]), y["predicates"]


def test_the_training_stream_holds_windows_with_and_without_a_schema(prepared):
    cfg, out, _ = prepared
    red = [r for r in read(os.path.join(out, "train.jsonl")) if r["source"] == "redocred"]
    with_list = sum("\nPredicates: " in r["prompt"] for r in red)
    assert 0 < with_list < len(red), (with_list, len(red))


def test_general_facts_name_only_listed_predicates():
    """An encyclopedic example with a schema replies only with predicates
    its list names, and every subject and object is written in the passage."""
    for split in ("train", "eval"):
        for passage, types, preds, facts in synth_general.generate(300, 3, split):
            for s, st, p, o, ot in facts:
                assert s in passage and o in passage, (s, o, passage)
                if preds is not None:
                    assert p in preds, (p, preds)
                    assert st in types and ot in types, (st, ot, types)
