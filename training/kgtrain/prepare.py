"""Data preparation: the training stream and the held-out evaluation sets.

Sources (../shared/benchmarks unless --data says otherwise):
  - Re-DocRED dev (MIT): train on the documents split.json does not hold
    out; sentence windows, each with the facts whose two entities are
    named in it and whose evidence (when annotated) lies inside it.
  - Text2KGBench Wikidata-TekGen train + validation (CC BY-SA 4.0): train
    on the ontologies split.json does not hold out; one gold triple a
    sentence, so these examples teach the schema's names, not recall.
  - synthetic business passages (synth.py; kgforge's own, MIT).
  - synthetic encyclopedic passages (synth_general.py; kgforge's own, MIT):
    several facts a sentence, each relation under the name a schema gives.
  - Text2KGBench DBpedia-WebNLG (CC BY-NC-SA 4.0): evaluation only, never
    written into the training stream.
Everything held out is decided by split.json alone; tests/test_split.py
checks that no held-out document, sentence or ontology reaches training.
Needs the Python standard library only.
"""

import hashlib
import json
import os
import random
import re

from . import synth, synth_general
from .prompt import render_facts, render_prompt

REDOCRED_TYPES = {"PER": "Person", "ORG": "Organization", "LOC": "Location", "TIME": "Date", "NUM": "Quantity",
                  "MISC": "Other"}

LICENCES = {
    "redocred": "MIT (Re-DocRED, tonytan48/Re-DocRED)",
    "tekgen": "CC BY-SA 4.0 (Text2KGBench Wikidata-TekGen, cenguix/Text2KGBench)",
    "synthetic": "MIT (kgforge)",
    "general": "MIT (kgforge)",
    "webnlg": "CC BY-NC-SA 4.0 (Text2KGBench DBpedia-WebNLG): evaluation only",
}


def load_split(path):
    with open(path) as f:
        return json.load(f)


def detok(tokens):
    """Re-DocRED tokens as running text."""
    s = " ".join(tokens)
    s = re.sub(r" ([,.;:!?%)\]])", r"\1", s)
    s = re.sub(r"([(\[$]) ", r"\1", s)
    s = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", s)
    s = s.replace("`` ", '"').replace(" ''", '"')
    return s


def redocred_docs(data):
    with open(os.path.join(data, "redocred", "dev_revised.json")) as f:
        docs = json.load(f)
    with open(os.path.join(data, "redocred", "rel_info.json")) as f:
        rel = json.load(f)
    return docs, rel


def redocred_heldout(i, split):
    """Document i of dev_revised.json is held out when i % mod == rem."""
    r = split["redocred"]
    return i % r["mod"] == r["rem"]


def redocred_window(doc, rel, lo, hi, max_facts=None):
    """The passage of sentences [lo, hi) and the facts stated inside it."""
    sents = [detok(s) for s in doc["sents"][lo:hi]]
    text = " ".join(sents)
    first = {}
    in_sent = {}
    for v, ms in enumerate(doc["vertexSet"]):
        for m in ms:
            if lo <= m["sent_id"] < hi:
                surf = detok(doc["sents"][m["sent_id"]][m["pos"][0]:m["pos"][1]])
                in_sent.setdefault(v, set()).add(m["sent_id"])
                if v not in first and surf in text:
                    first[v] = (surf, REDOCRED_TYPES.get(m["type"], "Other"))
    facts, seen = [], set()
    for lab in doc["labels"]:
        h, t = lab["h"], lab["t"]
        if h not in first or t not in first:
            continue
        ev = lab.get("evidence") or []
        if ev:
            if not all(lo <= e < hi for e in ev):
                continue
        elif not (in_sent[h] & in_sent[t]):
            continue
        key = (h, lab["r"], t)
        if key in seen:
            continue
        seen.add(key)
        facts.append((first[h][0], first[h][1], rel.get(lab["r"], lab["r"]), first[t][0], first[t][1]))
    if max_facts is not None and len(facts) > max_facts:
        return text, None  # a window with more facts than a reply should hold: not used for training
    return text, facts


def redocred_examples(data, split, rng, heldout, keep_empty=1.0, max_facts=None, schema=0.0):
    """Sentence windows of the documents on one side of the split; a
    window that states no fact is kept with probability keep_empty (many
    empty windows taught the model to stop before the facts). With
    probability schema a window comes with a predicate list, as a
    pipeline with an ontology sends it (with_schema)."""
    docs, rel = redocred_docs(data)
    names = sorted(set(rel.values()))
    out = []
    for i, doc in enumerate(docs):
        if redocred_heldout(i, split) != heldout:
            continue
        n = len(doc["sents"])
        lo = 0
        while lo < n:
            width = rng.choice([1, 1, 2, 2, 3, 4])
            hi = min(n, lo + width)
            text, facts = redocred_window(doc, rel, lo, hi, max_facts)
            start, lo = lo, hi
            if facts is None:
                continue
            if not facts and keep_empty < 1.0 and rng.random() >= keep_empty:
                continue
            x = {"source": "redocred", "doc": i, "sents": [start, hi], "passage": text, "types": None,
                 "predicates": None, "facts": facts}
            if schema and rng.random() < schema:
                x = with_schema(x, names, rng)
            out.append(x)
    return out


# Other names an ontology gives Re-DocRED's (Wikidata's) relations, in
# the camelCase of DBpedia-style ontologies: a window whose list uses them
# teaches the model to copy the list's name, not to recall Wikidata's.
ALIASES = {
    "located in the administrative territorial entity": ["location", "isPartOf", "region", "locatedIn"],
    "country": ["country", "nation", "inCountry"],
    "country of citizenship": ["nationality", "citizenship"],
    "contains administrative territorial entity": ["subdivision", "contains", "hasDistrict"],
    "notable work": ["notableWork", "knownFor"],
    "has part": ["hasPart", "includes"],
    "part of": ["partOf", "isPartOf", "memberOf"],
    "performer": ["artist", "performer", "musicalArtist"],
    "publication date": ["releaseDate", "publicationDate", "published"],
    "participant of": ["participantIn", "tookPartIn"],
    "participant": ["participant", "combatant"],
    "member of": ["memberOf", "affiliation"],
    "applies to jurisdiction": ["jurisdiction"],
    "country of origin": ["origin", "countryOfOrigin"],
    "date of birth": ["birthDate", "born"],
    "cast member": ["starring", "castMember"],
    "inception": ["foundingDate", "founded", "established", "foundingYear"],
    "record label": ["recordLabel", "label"],
    "located in or next to body of water": ["bodyOfWater", "nearestWater"],
    "continent": ["continent", "locatedOnContinent"],
    "date of death": ["deathDate", "died"],
    "sibling": ["sibling", "relative"],
    "conflict": ["battle", "war", "conflict"],
    "owned by": ["owner", "ownedBy"],
    "child": ["child", "hasChild"],
    "place of birth": ["birthPlace", "bornIn"],
    "place of death": ["deathPlace", "diedIn"],
    "religion": ["religion", "faith"],
    "spouse": ["spouse", "marriedTo"],
    "developer": ["developer", "developedBy"],
    "author": ["author", "writer", "writtenBy"],
    "followed by": ["followedBy", "successor"],
    "follows": ["precededBy", "predecessor"],
    "creator": ["creator", "createdBy"],
    "location": ["location", "place", "site"],
    "member of sports team": ["team", "club", "playsFor"],
    "educated at": ["almaMater", "education"],
    "parent organization": ["parentOrganisation", "parentCompany"],
    "subsidiary": ["subsidiary", "owns"],
    "father": ["father", "parent"],
    "mother": ["mother", "parent"],
    "head of government": ["leader", "leaderName", "headOfGovernment"],
    "head of state": ["headOfState", "leader"],
    "composer": ["composer", "musicBy"],
    "employer": ["employer", "worksFor"],
    "manufacturer": ["manufacturer", "builder", "madeBy"],
    "point in time": ["date", "time"],
    "basin country": ["basinCountry", "countries"],
    "director": ["director", "directedBy"],
    "award received": ["award", "awardReceived"],
    "official language": ["officialLanguage", "language"],
    "languages spoken, written or signed": ["language", "speaks"],
    "legislative body": ["legislature", "parliament"],
    "league": ["league"],
    "producer": ["producer", "producedBy"],
    "member of political party": ["party", "politicalParty"],
    "capital": ["capital"],
    "headquarters location": ["headquarter", "headquarters"],
    "genre": ["genre"],
    "publisher": ["publisher", "publishedBy"],
}


def with_schema(x, names, rng):
    """The window with a predicate list: its facts' relations and 2-8
    others, shuffled, the facts' predicates as the list spells them. Half
    the lists name the relations as an ontology of another vocabulary
    would (ALIASES, where every relation of the window has one), the
    others write Re-DocRED's names in one style (words, snake_case,
    camelCase, UPPER). The model learns to copy a predicate from the
    list, as Text2KGBench's ontologies and a user's schema give them."""
    present = sorted({f[2] for f in x["facts"]})
    others = [n for n in names if n not in present]
    preds = present + rng.sample(others, rng.randint(2, 8))
    rng.shuffle(preds)
    if all(p in ALIASES for p in present) and rng.random() < 0.5:
        name = {p: rng.choice(ALIASES[p]) for p in present}
        taken = set(name.values())
        for p in preds:
            if p not in name:
                alias = rng.choice(ALIASES.get(p, [synth.style_pred(p, "camel")]))
                if alias not in taken:
                    name[p] = alias
                    taken.add(alias)
        facts = [(s, st, name[p], o, ot) for s, st, p, o, ot in x["facts"]]
        return {**x, "predicates": [name[p] for p in preds if p in name], "facts": facts}
    style = rng.choice(synth.STYLES)
    facts = [(s, st, synth.style_pred(p, style), o, ot) for s, st, p, o, ot in x["facts"]]
    return {**x, "predicates": [synth.style_pred(p, style) for p in preds], "facts": facts}


def ontology(path):
    with open(path) as f:
        o = json.load(f)
    concepts = {c["qid"]: c["label"] for c in o["concepts"]}
    rels = [(r["label"], concepts.get(r.get("domain"), r.get("domain") or ""), concepts.get(r.get("range"), r.get("range") or ""))
            for r in o["relations"]]
    return o["id"], [c["label"] for c in o["concepts"]], rels


def tekgen_examples(data, split, heldout, parts=("train", "validation")):
    base = os.path.join(data, "text2kgbench", "wikidata_tekgen")
    out = []
    for fn in sorted(os.listdir(os.path.join(base, "ontologies"))):
        oid, concepts, rels = ontology(os.path.join(base, "ontologies", fn))
        if (oid in split["tekgen_heldout_ontologies"]) != heldout:
            continue
        rtype = {r[0]: (r[1], r[2]) for r in rels}
        for part in parts:
            path = os.path.join(base, part, f"{oid}_{part}.jsonl")
            if not os.path.exists(path):
                continue
            with open(path) as f:
                for line in f:
                    x = json.loads(line)
                    sent, s, p, o = x["sent"], x["sub_label"], x["rel_label"], x["obj_label"]
                    if not heldout and (s.lower() not in sent.lower() or o.lower() not in sent.lower()):
                        continue  # teach names written as in the passage
                    d, r = rtype.get(p, ("", ""))
                    out.append({"source": "tekgen", "ontology": oid, "id": x["id"], "passage": sent,
                                "types": concepts, "predicates": [r[0] for r in rels],
                                "facts": [(s, d or "Other", p, o, r or "Other")]})
    return out


def webnlg_examples(data):
    base = os.path.join(data, "text2kgbench", "dbpedia_webnlg")
    out = []
    for fn in sorted(os.listdir(os.path.join(base, "ontologies"))):
        oid, concepts, rels = ontology(os.path.join(base, "ontologies", fn))
        path = os.path.join(base, "train", f"{oid}_train.jsonl")
        with open(path) as f:
            for line in f:
                x = json.loads(line)
                facts = [(lab(t["sub"]), "", t["rel"], lab(t["obj"]), "") for t in x["triples"]]
                out.append({"source": "webnlg", "ontology": oid, "id": x["id"], "passage": x["sent"],
                            "types": concepts, "predicates": [r[0] for r in rels], "facts": facts})
    return out


def lab(s):
    s = s.replace("_", " ")
    if s.endswith(")") and " (" in s:
        s = s[:s.rindex(" (")]
    return s.strip('"')


def synth_examples(n, seed, split):
    return [{"source": "synthetic", "passage": p, "types": t, "predicates": pr, "facts": f}
            for p, t, pr, f in synth.generate(n, seed, split)]


def general_examples(n, seed, split):
    return [{"source": "general", "passage": p, "types": t, "predicates": pr, "facts": f}
            for p, t, pr, f in synth_general.generate(n, seed, split)]


def to_record(x):
    return {"source": x["source"], "prompt": render_prompt(x["passage"], x["types"], x["predicates"]),
            "completion": render_facts(x["facts"]), **{k: v for k, v in x.items() if k in ("doc", "sents", "ontology", "id")}}


def approx_tokens(s):
    return len(s) / 3.6


def write_jsonl(path, rows):
    with open(path + ".tmp", "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def prepare(cfg, out):
    """Writes train.jsonl and the eval_*.jsonl files under out; returns the data manifest."""
    data, split = cfg["data"], load_split(cfg["split"])
    d = cfg["prepare"]
    rng = random.Random(d["seed"])
    os.makedirs(out, exist_ok=True)
    pools = {
        "redocred": redocred_examples(data, split, rng, heldout=False, keep_empty=d["redocred_keep_empty"],
                                       max_facts=d["redocred_max_facts"], schema=d.get("redocred_schema", 0.0)),
        "tekgen": tekgen_examples(data, split, heldout=False),
        "synthetic": synth_examples(d["synthetic"], d["seed"], "train"),
        "general": general_examples(d.get("general", 0), d["seed"], "train"),
    }
    for k in pools:
        rng.shuffle(pools[k])
    limit = d["max_tokens"]
    recs = {k: [r for r in map(to_record, v) if approx_tokens(r["prompt"] + r["completion"]) <= limit]
            for k, v in pools.items()}
    # Interleave by weight, so any prefix of the stream has the mix.
    weights = d["weights"]
    stream, idx = [], {k: 0 for k in recs}
    while len(stream) < d["train_examples"]:
        k = rng.choices(list(weights), weights=[weights[x] for x in weights])[0]
        if idx[k] >= len(recs[k]):
            idx[k] = 0
            rng.shuffle(recs[k])
        stream.append(recs[k][idx[k]])
        idx[k] += 1
    files = {"train.jsonl": write_jsonl(os.path.join(out, "train.jsonl"), stream)}
    e = cfg["evaluate"]
    erng = random.Random(e["seed"])
    evals = {
        "eval_webnlg.jsonl": erng.sample(webnlg_examples(data), e["webnlg"]),
        "eval_tekgen.jsonl": erng.sample(tekgen_examples(data, split, heldout=True, parts=("validation",)), e["tekgen"]),
        "eval_redocred.jsonl": erng.sample([x for x in redocred_examples(data, split, random.Random(e["seed"]), heldout=True) if x["facts"]], e["redocred"]),
        "eval_synthetic.jsonl": synth_examples(e["synthetic"], e["seed"], "eval"),
        "eval_general.jsonl": general_examples(e.get("general", 0), e["seed"], "eval"),
    }
    for name, rows in evals.items():
        files[name] = write_jsonl(os.path.join(out, name), rows)
    counts = {k: sum(1 for r in stream if r["source"] == k) for k in recs}
    return {"files": files, "train_sources": counts, "licences": {k: LICENCES[k] for k in LICENCES},
            "pool_sizes": {k: len(v) for k, v in recs.items()}}
