package extract

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"kgforge/prompts"
)

// example is one worked example of prompts/extract_examples.tmpl: a
// passage and the facts it states, parsed by the same strict line parser
// as a model's reply.
type example struct {
	name    string
	passage string
	lines   string // the facts in the line format, as written
	reply   Reply  // the facts with their evidence, and the entities they name
}

// examplesShown is how many worked examples one prompt holds.
const examplesShown = 2

// loadExamples reads the worked examples and the version of their file.
func loadExamples() ([]example, string, error) {
	p, err := prompts.Load("extract_examples.tmpl")
	if err != nil {
		return nil, "", err
	}
	var out []example
	for _, name := range p.Parts("example_") {
		text, err := p.RenderPart(name, nil)
		if err != nil {
			return nil, "", err
		}
		passage, lines, ok := strings.Cut(text, "\n---\n")
		if !ok {
			return nil, "", fmt.Errorf("prompt %s part %s: no line --- between the passage and its facts", p.Name, name)
		}
		lines = strings.TrimSpace(lines)
		r, malformed := parseLines(lines, Sentences(passage), false, nil)
		if malformed > 0 {
			return nil, "", fmt.Errorf("prompt %s part %s: %d malformed fact lines (want subject | subject type | predicate | object | object type)", p.Name, name, malformed)
		}
		out = append(out, example{name: name, passage: strings.TrimSpace(passage), lines: lines, reply: r})
	}
	if len(out) < examplesShown {
		return nil, "", fmt.Errorf("prompt %s: %d worked examples, want at least %d", p.Name, len(out), examplesShown)
	}
	return out, p.Version, nil
}

// examplesFor returns the worked examples a chunk's prompt shows: the same
// for the same chunk id, rotating over the examples from one chunk to the
// next, so that no one example's names and predicates set the pattern of
// every reply.
func (e *Extractor) examplesFor(chunkID string) []example {
	h := fnv.New32a()
	h.Write([]byte(chunkID))
	start := int(h.Sum32() % uint32(len(e.examples)))
	out := make([]example, 0, examplesShown)
	for i := range examplesShown {
		out = append(out, e.examples[(start+i)%len(e.examples)])
	}
	return out
}

// examplesText is the text of every worked example a prompt may show:
// a name found there but not in a chunk was copied from an example.
func examplesText(exs []example) string {
	var b strings.Builder
	for _, x := range exs {
		b.WriteString(x.passage + "\n" + x.lines + "\n")
	}
	return b.String()
}

// replyJSON writes a reply in the order of the reply schema (evidence
// first), as a model following SchemaFor writes it.
func replyJSON(r Reply) string {
	triplets := make([]orderedProps, len(r.Triplets))
	for i, t := range r.Triplets {
		triplets[i] = orderedProps{
			{"evidence", t.Evidence},
			{"subject", t.Subject},
			{"subject_type", t.SubjectType},
			{"predicate", t.Predicate},
			{"object", t.Object},
			{"object_type", t.ObjectType},
		}
	}
	entities := make([]orderedProps, len(r.Entities))
	for i, en := range r.Entities {
		entities[i] = orderedProps{{"name", en.Name}, {"type", en.Type}, {"description", en.Description}}
	}
	b, _ := json.Marshal(orderedProps{{"triplets", triplets}, {"entities", entities}}) // strings only
	return string(b)
}
