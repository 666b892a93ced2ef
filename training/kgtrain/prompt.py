"""The specialist's prompt and reply, rendered exactly as kgforge renders
them (prompts/extract_specialist.tmpl; extract/specialist.go). A Go test
renders the cases of training/tests/prompt_cases.json and compares.
"""

DEFAULT_TYPES = ["Person", "Organization", "Location", "Product", "Event", "Date", "Quantity", "Other"]

HEADER = (
    "Extract the facts that the passage states, one per line as: "
    "subject | subject type | predicate | object | object type, then END. "
    "Write subject and object exactly as in the passage."
)

END = "END"


def render_prompt(passage, entity_types=None, predicates=None):
    """The prompt for one passage: header, entity types (the default set
    when none are given), predicates when given, the passage, "Facts:"."""
    types = entity_types or DEFAULT_TYPES
    out = [HEADER, "\nEntity types: " + ", ".join(types) + "."]
    if predicates:
        out.append("\nPredicates: " + ", ".join(predicates) + ".")
    out.append("\n\nPassage: " + " ".join(passage.split()) + "\nFacts:\n")
    return "".join(out)


def clean(field):
    """A field as it may appear in a line: one line, no "|"."""
    return " ".join(str(field).replace("|", "/").split())


def render_facts(facts):
    """The reply: one line a fact, then END."""
    lines = [" | ".join(clean(x) for x in f) for f in facts]
    return "".join(l + "\n" for l in lines) + END


def parse_facts(text):
    """Facts of a reply in the line format, up to END; malformed lines
    are counted. Returns (facts, malformed)."""
    facts, bad = [], 0
    for line in text.split("\n"):
        line = line.strip()
        if line == END:
            break
        if not line:
            continue
        f = [x.strip() for x in line.split("|")]
        if len(f) != 5 or not all(f):
            bad += 1
            continue
        facts.append(tuple(f))
    return facts, bad
