"""Synthetic business passages with their facts, written from templates
and random names, so the model learns the predicates and types of a
company's documents: companies, suppliers, parts, plants, people, orders,
batches, dates and quantities.

No name of kgforge's example corpus (examples/bikeco) is used: a test
checks it. The train and the evaluation split use disjoint name pools
and disjoint seeds, so evaluation names were never seen in training.
"""

import random

SYL_A = ["Ar", "Bel", "Cor", "Dal", "Ev", "Fen", "Gar", "Hal", "Ist", "Jor", "Kal", "Lin", "Mor", "Nor", "Or", "Pel",
         "Quin", "Ros", "Sal", "Tor", "Ul", "Var", "Wen", "Yar", "Zel", "Bra", "Cas", "Dro", "Fal", "Gri", "Hex", "Mar"]
SYL_B = ["ada", "bex", "cor", "dane", "ex", "field", "gon", "holm", "ion", "jet", "kin", "lux", "mont", "nex", "ova",
         "par", "quist", "ron", "stad", "tek", "una", "vik", "wick", "xa", "yon", "zen", "bury", "dal", "gate", "mere"]
CO_KIND = ["Metals", "Components", "Logistics", "Plastics", "Electronics", "Foods", "Textiles", "Motors",
           "Tools", "Chemicals", "Energy", "Pharma", "Software", "Packaging", "Machines", "Materials", "Industries"]
CO_SUFFIX = ["Ltd", "GmbH", "A/S", "S.A.", "Inc.", "AB", "s.r.o.", "B.V.", "Oy", "S.p.A.", "LLC", "plc", "AG", "Corp."]

FIRST = ["Amara", "Bilal", "Chiara", "Dmitri", "Esther", "Farid", "Greta", "Hiroshi", "Ines", "Jakob", "Kemal", "Lucia",
         "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Stefan", "Tariq", "Ursula", "Viktor", "Wanjiru", "Xavier",
         "Yuki", "Zofia", "Aiko", "Bruno", "Carmen", "Daniel", "Emre", "Fatima", "Gustav", "Helga", "Ivan", "Julia",
         "Kofi", "Leila", "Magnus", "Noor", "Olga", "Pablo", "Rania", "Sven", "Teresa", "Umar", "Vera", "Wei", "Yasmin"]
LAST = ["Abara", "Bergstrom", "Castillo", "Dimitrov", "Eriksen", "Fontaine", "Gallo", "Hakimi", "Ivanova", "Jansen",
        "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quispe", "Rossi", "Schmidt", "Tanaka",
        "Uddin", "Vargas", "Weber", "Xu", "Yilmaz", "Zielinski", "Andersen", "Brennan", "Costa", "Dubois", "Engel",
        "Fischer", "Gomez", "Horvat", "Iqbal", "Jovanovic", "Kruger", "Larsen", "Mendes", "Novak", "Ortiz", "Park"]
CITIES = [("Lyon", "France"), ("Graz", "Austria"), ("Gdansk", "Poland"), ("Tampere", "Finland"),
          ("Turin", "Italy"), ("Eindhoven", "Netherlands"), ("Ghent", "Belgium"),
          ("Malmo", "Sweden"), ("Leeds", "United Kingdom"), ("Cork", "Ireland"), ("Cluj", "Romania"), ("Plovdiv", "Bulgaria"), ("Izmir", "Turkey"), ("Pune", "India"), ("Osaka", "Japan"),
          ("Busan", "South Korea"), ("Monterrey", "Mexico"), ("Curitiba", "Brazil"), ("Rosario", "Argentina"),
          ("Dayton", "United States"), ("Calgary", "Canada"), ("Perth", "Australia"), ("Durban", "South Africa"),
          ("Stuttgart", "Germany"), ("Bergen", "Norway"), ("Tartu", "Estonia"), ("Kaunas", "Lithuania"),
          ("Ljubljana", "Slovenia"), ("Zaragoza", "Spain"), ("Nantes", "France"), ("Bologna", "Italy"),
          ("Leipzig", "Germany"), ("Wroclaw", "Poland"), ("Hsinchu", "Taiwan"), ("Penang", "Malaysia")]
MATERIAL = ["steel", "aluminium", "carbon", "copper", "rubber", "nylon", "titanium", "glass", "ceramic", "oak"]
PART = ["bracket", "housing", "valve", "gear", "shaft", "sensor", "panel", "pump", "cable", "bearing", "fork", "rim",
        "seal", "spring", "motor", "controller", "display", "filter", "hinge", "wheel"]
PRODUCT_KIND = ["scooter", "drill", "kettle", "boat", "printer", "heater", "tractor", "lamp", "router", "chair",
                "mixer", "drone", "oven", "camera", "pump", "bike", "trailer", "loader", "washer", "speaker"]
CERTS = ["ISO 9001", "ISO 14001", "ISO 45001", "IATF 16949", "ISO 13485", "AS9100"]
ROLES = ["CEO", "CFO", "Head of Purchasing", "Plant Manager", "Quality Manager", "Sales Director", "Chief Engineer",
         "Head of Logistics", "Finance Director", "Operations Director"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
FILLER = ["The market for these products grew quickly that year.", "Demand was strong in the second half.",
          "The figures were reviewed at the quarterly meeting.", "More details follow in the next section.",
          "This section summarises the situation.", "Prices of raw materials rose sharply.",
          "The team expects further growth.", "Several issues remain open.", "Shipping costs increased again.",
          "The board discussed the results.", "Training of new staff continued.", "No safety incidents were reported."]


class World:
    """Random entities of one passage, drawn from one half of each name pool."""

    def __init__(self, rng, split):
        self.rng = rng
        # Pools are cut in two by position: train draws from even, eval from odd positions.
        k = 0 if split == "train" else 1
        self.syl_a, self.syl_b = SYL_A[k::2], SYL_B[k::2]
        self.first, self.last = FIRST[k::2], LAST[k::2]
        self.cities = CITIES[k::2]
        self.used = set()

    def fresh(self, make):
        for _ in range(50):
            v = make()
            if v not in self.used:
                self.used.add(v)
                return v
        return make()

    def company(self):
        r = self.rng

        def make():
            base = r.choice(self.syl_a) + r.choice(self.syl_b)
            form = r.random()
            if form < 0.4:
                return f"{base} {r.choice(CO_KIND)} {r.choice(CO_SUFFIX)}"
            if form < 0.7:
                return f"{base} {r.choice(CO_SUFFIX)}"
            if form < 0.85:
                return f"{base} {r.choice(CO_KIND)}"
            return base
        return self.fresh(make)

    def person(self):
        return self.fresh(lambda: f"{self.rng.choice(self.first)} {self.rng.choice(self.last)}")

    def city(self):
        return self.rng.choice(self.cities)

    def part(self):
        r = self.rng

        def make():
            code = r.choice("ABCDEFGHKLMNPRSTVWXZ") + r.choice("ABCDEFGHKLMNPRSTVWXZ") + str(r.randint(1, 99))
            mat = r.choice(MATERIAL)
            p = r.choice(PART)
            return f"{mat.capitalize()} {p} {code}" if r.random() < 0.6 else f"{code} {p}"
        return self.fresh(make)

    def product(self):
        r = self.rng
        return self.fresh(lambda: f"{r.choice(self.syl_a)}{r.choice(self.syl_b)} {r.choice([100, 200, 250, 300, 400, 500, 700, 900, 1200])}")

    def batch(self):
        r = self.rng
        return self.fresh(lambda: f"{r.choice('ABCDEFGHKLMNPRSTVWXZ')}{r.choice('ABCDEFGHKLMNPRSTVWXZ')}-{r.randint(20, 26)}{r.randint(1, 12):02d}-{r.randint(1, 40):02d}")

    def order(self):
        r = self.rng
        return self.fresh(lambda: f"{r.choice(['PO', 'SO', 'ORD'])}-{r.randint(1000, 99999)}")

    def date(self):
        r = self.rng
        y, m, d = r.randint(1995, 2026), r.randint(1, 12), r.randint(1, 28)
        form = r.random()
        if form < 0.5:
            return f"{d} {MONTHS[m - 1]} {y}"
        if form < 0.7:
            return f"{y}-{m:02d}-{d:02d}"
        if form < 0.85:
            return f"{MONTHS[m - 1]} {y}"
        return str(y)

    def qty(self, lo=2, hi=5000):
        n = self.rng.randint(lo, hi)
        return f"{n:,}" if n >= 1000 and self.rng.random() < 0.5 else str(n)


# Each relation: its predicate in words, and the entity kinds it joins.
# Kinds map to types below; a schema may rename both.
KIND_TYPE = {"company": "Organization", "person": "Person", "city": "Location", "country": "Location",
             "plant": "Location", "part": "Product", "product": "Product", "batch": "Product", "order": "Event",
             "date": "Date", "qty": "Quantity", "cert": "Other", "role": "Other"}
KIND_SCHEMA = {"company": ["Company", "Organization", "Organisation", "Supplier", "Manufacturer"],
               "person": ["Person", "Employee", "Human"], "city": ["City", "Location", "Place"],
               "country": ["Country", "Location", "Place"], "plant": ["Plant", "Facility", "Site"],
               "part": ["Part", "Component", "Product"], "product": ["Product", "Model"],
               "batch": ["Batch", "Lot"], "order": ["Order", "PurchaseOrder"], "date": ["Date", "Time"],
               "qty": ["Quantity", "Number"], "cert": ["Certification", "Standard"], "role": ["Role", "Position"]}


def _templates(w):
    """Sentences, each with the facts it states: (text, [(s, skind, pred, o, okind)])."""
    r = w.rng
    out = []
    co, co2 = w.company(), w.company()
    city, country = w.city()
    p1, p2 = w.person(), w.person()
    part, prod = w.part(), w.product()
    plant = f"{city} plant"
    d = w.date()
    role = r.choice(ROLES)
    out.append(r.choice([
        (f"{co} is based in {city}, {country}.", [(co, "company", "based in", city, "city"), (city, "city", "located in", country, "country")]),
        (f"{co} has its headquarters in {city}.", [(co, "company", "based in", city, "city")]),
        (f"Headquartered in {city}, {co} makes {r.choice(PRODUCT_KIND)}s.", [(co, "company", "based in", city, "city")]),
    ]))
    out.append(r.choice([
        (f"{co} was founded in {d}.", [(co, "company", "founded in", d, "date")]),
        (f"{p1} founded {co} in {d}.", [(p1, "person", "founded", co, "company"), (co, "company", "founded in", d, "date")]),
    ]))
    out.append(r.choice([
        (f"{p1} is the {role} of {co}.", [(p1, "person", "role", role, "role"), (p1, "person", "works for", co, "company")]),
        (f"{co} appointed {p1} as {role} in {d}.", [(p1, "person", "works for", co, "company"), (p1, "person", "role", role, "role")]),
        (f"{p1} works for {co}.", [(p1, "person", "works for", co, "company")]),
    ]))
    out.append(r.choice([
        (f"{p2} reports to {p1}.", [(p2, "person", "reports to", p1, "person")]),
        (f"{p2} manages the {plant}.", [(p2, "person", "manages", plant, "plant")]),
        (f"{p2} is the manager of the {plant}.", [(p2, "person", "manages", plant, "plant")]),
    ]))
    n = w.qty(20, 9000)
    out.append(r.choice([
        (f"{co} employs {n} people.", [(co, "company", "employees", n, "qty")]),
        (f"{co} has about {n} employees.", [(co, "company", "employees", n, "qty")]),
    ]))
    out.append(r.choice([
        (f"{co2} supplies {part} to {co}.", [(co2, "company", "supplies", part, "part"), (co2, "company", "supplier of", co, "company")]),
        (f"{co} buys {part} from {co2}.", [(co2, "company", "supplies", part, "part"), (co2, "company", "supplier of", co, "company")]),
        (f"The {part} is supplied by {co2}.", [(co2, "company", "supplies", part, "part")]),
        (f"{co2} is the only supplier of the {part}.", [(co2, "company", "supplies", part, "part")]),
    ]))
    out.append(r.choice([
        (f"The {prod} uses the {part}.", [(prod, "product", "uses", part, "part")]),
        (f"The {prod} is assembled at the {plant}.", [(prod, "product", "assembled at", plant, "plant")]),
        (f"{co} manufactures the {prod}.", [(co, "company", "manufactures", prod, "product")]),
        (f"{co} launched the {prod} in {d}.", [(co, "company", "manufactures", prod, "product"), (prod, "product", "launched in", d, "date")]),
    ]))
    out.append(r.choice([
        (f"The {plant} is located in {city}.", [(plant, "plant", "located in", city, "city")]),
        (f"{co} operates a plant in {city}.", [(co, "company", "operates plant in", city, "city")]),
        (f"The {plant} opened in {d}.", [(plant, "plant", "opened in", d, "date")]),
    ]))
    b, q, d2 = w.batch(), w.qty(10, 900), w.date()
    out.append(r.choice([
        (f"{co2} delivered batch {b} to the {plant} on {d2}.", [(co2, "company", "delivered", b, "batch"), (b, "batch", "delivered to", plant, "plant"), (b, "batch", "delivered on", d2, "date")]),
        (f"Batch {b} contained {q} units of the {part}.", [(b, "batch", "contains", part, "part"), (b, "batch", "quantity", q, "qty")]),
        (f"Batch {b} failed the inspection on {d2}.", [(b, "batch", "failed inspection on", d2, "date")]),
        (f"Batch {b} passed the inspection on {d2}.", [(b, "batch", "passed inspection on", d2, "date")]),
    ]))
    o, q2 = w.order(), w.qty(5, 400)
    out.append(r.choice([
        (f"{co} placed order {o} with {co2} for {q2} units of the {part}.", [(co, "company", "placed", o, "order"), (o, "order", "supplier", co2, "company"), (o, "order", "item", part, "part"), (o, "order", "quantity", q2, "qty")]),
        (f"Order {o} was approved by {p1} on {d2}.", [(o, "order", "approved by", p1, "person"), (o, "order", "approved on", d2, "date")]),
        (f"{co2} is a customer of {co}.", [(co2, "company", "customer of", co, "company")]),
    ]))
    cert = r.choice(CERTS)
    rating = str(r.randint(10, 49) / 10)
    out.append(r.choice([
        (f"{co2} holds {cert} certification.", [(co2, "company", "certified", cert, "cert")]),
        (f"{co} acquired {co2} in {d2}.", [(co, "company", "acquired", co2, "company"), (co, "company", "acquired on", d2, "date")]),
        (f"{co2} is a subsidiary of {co}.", [(co2, "company", "subsidiary of", co, "company")]),
        (f"{co} signed a contract with {co2} in {d2}.", [(co, "company", "contract with", co2, "company")]),
        (f"{co} lowered the rating of {co2} to {rating}.", [(co2, "company", "rating", rating, "qty")]),
    ]))
    return out


STYLES = ["words", "snake", "camel", "upper"]


def style_pred(p, style):
    ws = p.split()
    if style == "snake":
        return "_".join(ws)
    if style == "camel":
        return ws[0] + "".join(x.capitalize() for x in ws[1:])
    if style == "upper":
        return "_".join(ws).upper()
    return p


ALL_PREDS = ["based in", "located in", "founded in", "founded", "role", "works for", "reports to", "manages",
             "employees", "supplies", "supplier of", "uses", "assembled at", "manufactures", "launched in",
             "operates plant in", "opened in", "delivered", "delivered to", "delivered on", "contains", "quantity",
             "failed inspection on", "passed inspection on", "placed", "supplier", "item", "approved by",
             "approved on", "customer of", "certified", "acquired", "acquired on", "subsidiary of", "contract with",
             "rating"]


def example(rng, split):
    """One synthetic example: (passage, entity_types or None, predicates or None, facts)."""
    w = World(rng, split)
    sents = _templates(w)
    k = rng.randint(1, 6)
    chosen = rng.sample(sents, k)
    parts, facts = [], []
    for text, fs in chosen:
        parts.append(text)
        facts.extend(fs)
    if rng.random() < 0.35:
        parts.insert(rng.randint(0, len(parts)), rng.choice(FILLER))
    if rng.random() < 0.04:
        parts, facts = [rng.choice(FILLER), rng.choice(FILLER)], []
    passage = " ".join(p[0].upper() + p[1:] for p in parts)
    schema = rng.random() < 0.5
    if schema:
        style = rng.choice(STYLES)
        kinds = sorted({f[1] for f in facts} | {f[4] for f in facts})
        kind_name = {k: rng.choice(KIND_SCHEMA[k]) for k in KIND_SCHEMA}
        present = sorted({f[2] for f in facts})
        extra = rng.sample([p for p in ALL_PREDS if p not in present], rng.randint(2, 8))
        preds = present + extra
        rng.shuffle(preds)
        type_names = sorted({kind_name[k] for k in kinds} | {kind_name[k] for k in rng.sample(list(KIND_SCHEMA), 3)})
        out = [(s, kind_name[sk], style_pred(p, style), o, kind_name[ok]) for s, sk, p, o, ok in facts]
        return passage, type_names, [style_pred(p, style) for p in preds], out
    out = [(s, KIND_TYPE[sk], p, o, KIND_TYPE[ok]) for s, sk, p, o, ok in facts]
    return passage, None, None, out


def generate(n, seed, split):
    rng = random.Random(f"{split}-{seed}")
    return [example(rng, split) for _ in range(n)]
