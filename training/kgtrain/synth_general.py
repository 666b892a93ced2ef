"""Synthetic encyclopedic passages with their facts: people, creative works,
places, organisations and teams, written from templates and random names
(the name pools of synth.py, cut in the same two halves, plus their own).

What this teaches that the business passages do not: a passage states
several facts in one sentence ("X, born in A, died on D in B"), and a
relation is named however the pipeline's schema names it. Every relation
has several names (words, Wikidata-like labels, DBpedia-like camelCase,
snake case); an example with a schema draws one name a relation, lists
it among others, and the reply uses exactly the listed name. Some
sentences state a fact whose relation the list does not have: the reply
leaves it out. The relations are common encyclopedic ones (birth place,
author, headquarters, …), written after reading the replies to a dozen
held-out WebNLG sentences: WebNLG stays held out by sentence and name,
not by kind of relation (docs/benchmarks.md says so beside its figures).
"""

import random

from . import synth

# canonical relation -> the names a schema may give it
NAMES = {
    "born in": ["born in", "place of birth", "birthPlace", "birth place", "born_in"],
    "born on": ["born on", "date of birth", "birthDate", "birth date"],
    "died in": ["died in", "place of death", "deathPlace", "death place"],
    "died on": ["died on", "date of death", "deathDate", "death date"],
    "nationality": ["nationality", "country of citizenship", "citizenship"],
    "occupation": ["occupation", "profession", "job"],
    "educated at": ["educated at", "almaMater", "alma mater", "studied at"],
    "spouse": ["spouse", "married to", "husband or wife"],
    "award": ["award", "award received", "awarded", "honour"],
    "employer": ["employer", "works for", "worked for"],
    "author": ["author", "written by", "writer"],
    "director": ["director", "directed by"],
    "cast member": ["cast member", "starring", "actor"],
    "publisher": ["publisher", "published by"],
    "publication date": ["publication date", "release date", "releaseDate", "published in"],
    "genre": ["genre", "literary genre", "style"],
    "language": ["language", "original language", "language of work"],
    "followed by": ["followed by", "sequel", "next work"],
    "country": ["country", "located in country", "state"],
    "capital": ["capital", "capital city", "seat of government"],
    "located in": ["located in", "location", "part of", "isPartOf"],
    "population": ["population", "populationTotal", "number of inhabitants"],
    "mayor": ["mayor", "leader", "head of government"],
    "founded by": ["founded by", "founder", "foundedBy"],
    "inception": ["inception", "founding date", "foundingYear", "founded in", "established"],
    "headquarters": ["headquarters", "headquarters location", "based in", "seat"],
    "industry": ["industry", "sector", "field of work"],
    "architect": ["architect", "designed by", "designer"],
    "opened": ["opening date", "opened in", "date of official opening"],
    "plays for": ["member of sports team", "plays for", "club", "team"],
    "head coach": ["head coach", "manager", "coach"],
    "league": ["league", "competition", "division"],
    "home ground": ["home ground", "home venue", "stadium"],
    "instance of": ["instance of", "type", "is a"],
}
RELATIONS = sorted(NAMES)

# entity kind -> (default type, names a schema may give it)
KINDS = {
    "person": ("Person", ["Person", "Human", "human", "Artist", "Politician", "Writer"]),
    "place": ("Location", ["City", "Place", "Location", "Settlement", "city"]),
    "country": ("Location", ["Country", "Location", "country", "State"]),
    "work": ("Product", ["Work", "Book", "Film", "WrittenWork", "creative work", "literary work"]),
    "org": ("Organization", ["Organisation", "Organization", "Company", "organization", "Institution"]),
    "school": ("Organization", ["University", "School", "EducationalInstitution", "university"]),
    "team": ("Organization", ["SportsTeam", "Club", "sports team", "Team"]),
    "venue": ("Location", ["Stadium", "Building", "Venue", "building"]),
    "league": ("Organization", ["League", "SportsLeague", "competition"]),
    "date": ("Date", ["Date", "Year", "Time", "point in time"]),
    "qty": ("Quantity", ["Number", "Quantity", "Population", "integer"]),
    "award": ("Other", ["Award", "Prize", "award"]),
    "job": ("Other", ["Occupation", "Profession", "occupation"]),
    "genre": ("Other", ["Genre", "genre", "literary genre"]),
    "language": ("Other", ["Language", "language"]),
    "industry": ("Other", ["Industry", "Field", "industry"]),
    "kind": ("Other", ["Class", "Type", "class"]),
}

JOBS = ["painter", "novelist", "engineer", "architect", "physician", "journalist", "lawyer", "composer", "chemist",
        "photographer", "diplomat", "teacher", "sculptor", "economist", "pilot", "historian", "actor", "poet"]
GENRES = ["crime novel", "historical fiction", "science fiction", "documentary", "comedy", "drama", "thriller",
          "biography", "fantasy", "travel writing", "satire", "western"]
LANGUAGES = ["French", "German", "Polish", "Finnish", "Italian", "Spanish", "Dutch", "Swedish", "Czech",
             "Portuguese", "Greek", "Hungarian"]
INDUSTRIES = ["shipbuilding", "publishing", "banking", "mining", "textiles", "software", "brewing", "insurance",
              "railway transport", "pharmaceuticals"]
AWARD_KIND = ["Prize", "Medal", "Award"]
TITLE_A = ["The", "A"]
TITLE_N = ["Harbour", "Winter", "Mirror", "Garden", "Lantern", "River", "Orchard", "Bridge", "Silence", "Compass",
           "Tower", "Storm", "Letter", "Island", "Meadow", "Archive"]
TITLE_B = ["of Ash", "at Dawn", "in Autumn", "of Glass", "Without End", "of the North", "Returns", "of Salt",
           "at Midnight", "of Stone"]
TEAM_KIND = ["FC", "United", "Athletic", "Rovers", "City", "Sporting"]
LEAGUE = ["Premier Division", "First League", "Super League", "National League", "Championship"]
KIND_WORDS = ["town", "village", "port city", "market town", "river port"]


class World(synth.World):
    def work(self):
        r = self.rng

        def make():
            f = r.random()
            if f < 0.4:
                return f"{r.choice(TITLE_A)} {r.choice(TITLE_N)} {r.choice(TITLE_B)}"
            if f < 0.7:
                return f"{r.choice(TITLE_N)} {r.choice(TITLE_B)}"
            return f"{r.choice(self.syl_a)}{r.choice(self.syl_b)}"
        return self.fresh(make)

    def place(self):
        r = self.rng
        return self.fresh(lambda: f"{r.choice(self.syl_a)}{r.choice(self.syl_b)}{r.choice(['', 'burg', 'ville', 'stad', 'ford'])}")

    def school(self):
        r = self.rng
        return self.fresh(lambda: r.choice([f"University of {self.city()[0]}", f"{self.city()[0]} Institute of Technology",
                                            f"{r.choice(self.syl_a)}{r.choice(self.syl_b)} College",
                                            f"{r.choice(self.last)} Academy"]))

    def team(self):
        r = self.rng
        return self.fresh(lambda: f"{self.city()[0]} {r.choice(TEAM_KIND)}" if r.random() < 0.6
                          else f"{r.choice(self.syl_a)}{r.choice(self.syl_b)} {r.choice(TEAM_KIND)}")

    def venue(self):
        r = self.rng
        return self.fresh(lambda: f"{r.choice(self.last)} {r.choice(['Stadium', 'Park', 'Arena', 'Hall'])}")

    def award(self):
        r = self.rng
        return self.fresh(lambda: f"{r.choice(self.last)} {r.choice(AWARD_KIND)}")


def _person(w):
    r = w.rng
    p, sp = w.person(), w.person()
    bc, bk = w.city()
    dc, dk = w.city()
    bd, dd = w.date(), w.date()
    job = r.choice(JOBS)
    school, org, award = w.school(), w.company(), w.award()
    a = "an" if job[0] in "aeiou" else "a"
    return [
        r.choice([
            (f"{p} was born in {bc}.", [(p, "person", "born in", bc, "place")]),
            (f"{p} was born in {bc}, {bk}, on {bd}.", [(p, "person", "born in", bc, "place"), (p, "person", "born on", bd, "date"), (bc, "place", "country", bk, "country")]),
            (f"Born on {bd} in {bc}, {p} became {a} {job}.", [(p, "person", "born on", bd, "date"), (p, "person", "born in", bc, "place"), (p, "person", "occupation", job, "job")]),
            (f"{p} ({bd} – {dd}) was {a} {bk} {job}.", [(p, "person", "born on", bd, "date"), (p, "person", "died on", dd, "date"), (p, "person", "occupation", job, "job")]),
        ]),
        r.choice([
            (f"{p} died in {dc} on {dd}.", [(p, "person", "died in", dc, "place"), (p, "person", "died on", dd, "date")]),
            (f"{p}, born in {bc}, died on {dd} in {dc}.", [(p, "person", "born in", bc, "place"), (p, "person", "died on", dd, "date"), (p, "person", "died in", dc, "place")]),
            (f"{p} died in {dc}.", [(p, "person", "died in", dc, "place")]),
        ]),
        r.choice([
            (f"{p} studied at the {school}." if school.startswith("University") else f"{p} studied at {school}.", [(p, "person", "educated at", school, "school")]),
            (f"{p}, a graduate of {school}, worked for {org}.", [(p, "person", "educated at", school, "school"), (p, "person", "employer", org, "org")]),
            (f"{p} worked as {a} {job} for {org}.", [(p, "person", "occupation", job, "job"), (p, "person", "employer", org, "org")]),
        ]),
        r.choice([
            (f"{p} is a {bk} citizen.", [(p, "person", "nationality", bk, "country")]),
            (f"{p} was married to {sp}.", [(p, "person", "spouse", sp, "person")]),
            (f"{p} received the {award} in {w.date()}.", [(p, "person", "award", award, "award")]),
            (f"{p} and his wife {sp} won the {award}.", [(p, "person", "spouse", sp, "person"), (p, "person", "award", award, "award"), (sp, "person", "award", award, "award")]),
        ]),
    ]


def _work(w):
    r = w.rng
    t, t2 = w.work(), w.work()
    a, d, c = w.person(), w.person(), w.person()
    pub, date = w.company(), w.date()
    genre, lang = r.choice(GENRES), r.choice(LANGUAGES)
    return [
        r.choice([
            (f"{t} is a {genre} by {a}.", [(t, "work", "author", a, "person"), (t, "work", "genre", genre, "genre")]),
            (f"{a} wrote {t}, which {pub} published in {date}.", [(t, "work", "author", a, "person"), (t, "work", "publisher", pub, "org"), (t, "work", "publication date", date, "date")]),
            (f"{t} was written by {a} and published by {pub}.", [(t, "work", "author", a, "person"), (t, "work", "publisher", pub, "org")]),
        ]),
        r.choice([
            (f"{t} was directed by {d} and stars {c}.", [(t, "work", "director", d, "person"), (t, "work", "cast member", c, "person")]),
            (f"The film {t}, directed by {d}, was released on {date}.", [(t, "work", "director", d, "person"), (t, "work", "publication date", date, "date")]),
            (f"{c} starred in {t}.", [(t, "work", "cast member", c, "person")]),
        ]),
        r.choice([
            (f"{t} is written in {lang}.", [(t, "work", "language", lang, "language")]),
            (f"{t} was followed by {t2}.", [(t, "work", "followed by", t2, "work")]),
            (f"{t2}, the sequel to {t}, came out in {w.date()}.", [(t, "work", "followed by", t2, "work")]),
            (f"Originally in {lang}, {t} is a {genre}.", [(t, "work", "language", lang, "language"), (t, "work", "genre", genre, "genre")]),
        ]),
    ]


def _place(w):
    r = w.rng
    town = w.place()
    city, country = w.city()
    m = w.person()
    pop = w.qty(800, 900000)
    kind = r.choice(KIND_WORDS)
    arch, venue, year = w.person(), w.venue(), w.date()
    return [
        r.choice([
            (f"{town} is a {kind} in {country}.", [(town, "place", "instance of", kind, "kind"), (town, "place", "country", country, "country")]),
            (f"{town} lies in {city}, {country}.", [(town, "place", "located in", city, "place"), (town, "place", "country", country, "country")]),
            (f"{town}, a {kind} near {city}, has {pop} inhabitants.", [(town, "place", "instance of", kind, "kind"), (town, "place", "population", pop, "qty")]),
        ]),
        r.choice([
            (f"The mayor of {town} is {m}.", [(town, "place", "mayor", m, "person")]),
            (f"{town} has a population of {pop}.", [(town, "place", "population", pop, "qty")]),
            (f"{town}, led by {m}, is home to {pop} people.", [(town, "place", "mayor", m, "person"), (town, "place", "population", pop, "qty")]),
            (f"The capital of {country} is {city}.", [(country, "country", "capital", city, "place")]),
        ]),
        r.choice([
            (f"{venue} in {town} was designed by {arch} and opened in {year}.", [(venue, "venue", "located in", town, "place"), (venue, "venue", "architect", arch, "person"), (venue, "venue", "opened", year, "date")]),
            (f"{venue} opened in {year}.", [(venue, "venue", "opened", year, "date")]),
            (f"The architect of {venue} was {arch}.", [(venue, "venue", "architect", arch, "person")]),
        ]),
    ]


def _org(w):
    r = w.rng
    o, f = w.company(), w.person()
    city, country = w.city()
    year, ind = w.date(), r.choice(INDUSTRIES)
    team, league, venue, coach, player = w.team(), r.choice(LEAGUE), w.venue(), w.person(), w.person()
    return [
        r.choice([
            (f"{o} was founded by {f} in {year}.", [(o, "org", "founded by", f, "person"), (o, "org", "inception", year, "date")]),
            (f"{o}, {'an' if ind[0] in 'aeiou' else 'a'} {ind} company, is headquartered in {city}.", [(o, "org", "industry", ind, "industry"), (o, "org", "headquarters", city, "place")]),
            (f"Founded in {year}, {o} is based in {city}, {country}.", [(o, "org", "inception", year, "date"), (o, "org", "headquarters", city, "place"), (city, "place", "country", country, "country")]),
            (f"{f} established {o} in {city}.", [(o, "org", "founded by", f, "person")]),
        ]),
        r.choice([
            (f"{team} plays in the {league} at {venue}.", [(team, "team", "league", league, "league"), (team, "team", "home ground", venue, "venue")]),
            (f"{coach} is the head coach of {team}.", [(team, "team", "head coach", coach, "person")]),
            (f"{player} plays for {team}, which is managed by {coach}.", [(player, "person", "plays for", team, "team"), (team, "team", "head coach", coach, "person")]),
            (f"{team}, founded in {year}, plays its home games at {venue}.", [(team, "team", "inception", year, "date"), (team, "team", "home ground", venue, "venue")]),
        ]),
    ]


TOPICS = [_person, _work, _place, _org]


def example(rng, split):
    """One example: (passage, entity_types or None, predicates or None, facts)."""
    w = World(rng, split)
    sents = []
    for topic in rng.sample(TOPICS, rng.randint(1, 2)):
        sents.extend(topic(w))
    chosen = rng.sample(sents, rng.randint(1, min(4, len(sents))))
    parts, facts = [], []
    for text, fs in chosen:
        parts.append(text)
        for f in fs:
            if f not in facts:
                facts.append(f)
    if rng.random() < 0.2:
        parts.insert(rng.randint(0, len(parts)), rng.choice(synth.FILLER))
    passage = " ".join(p[0].upper() + p[1:] for p in parts)
    if rng.random() < 0.2:
        out = [(s, KINDS[sk][0], p, o, KINDS[ok][0]) for s, sk, p, o, ok in facts]
        return passage, None, None, out
    # A schema: one name a relation, the passage's relations (a few left
    # out: their facts leave the reply) among others, one name a kind.
    name = {rel: rng.choice(NAMES[rel]) for rel in RELATIONS}
    kind = {k: rng.choice(v[1]) for k, v in KINDS.items()}
    present = sorted({f[2] for f in facts})
    dropped = set()
    if len(present) > 1 and rng.random() < 0.3:
        dropped = set(rng.sample(present, rng.randint(1, len(present) - 1)))
    listed = [p for p in present if p not in dropped]
    others = [p for p in RELATIONS if p not in present]
    listed += rng.sample(others, rng.randint(2, min(len(others), 30)))
    rng.shuffle(listed)
    facts = [f for f in facts if f[2] not in dropped]
    kinds = sorted({f[1] for f in facts} | {f[4] for f in facts} | set(rng.sample(sorted(KINDS), 4)))
    types = sorted({kind[k] for k in kinds})
    out = [(s, kind[sk], name[p], o, kind[ok]) for s, sk, p, o, ok in facts]
    return passage, types, [name[p] for p in listed], out


def generate(n, seed, split):
    rng = random.Random(f"general-{split}-{seed}")
    return [example(rng, split) for _ in range(n)]
