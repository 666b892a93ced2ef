package extract

import (
	"fmt"
	"strings"

	"kgforge/kg"
	"kgforge/prompts"
)

// SpecialistPrompt is the value of the GGUF key kgforge.prompt (reported
// by the server as llm.ModelInfo.Specialist) that marks a model trained on
// prompts/extract_specialist.tmpl: ModeFor drives such a model with
// ModeSpecialist.
const SpecialistPrompt = "extract_specialist"

// DefaultEntityTypes are the types the specialist assigns when the
// pipeline has no schema: the set it was trained on
// (training/kgtrain/prompt.py).
var DefaultEntityTypes = []string{"Person", "Organization", "Location", "Product", "Event", "Date", "Quantity", "Other"}

// checkSpecialist checks options for ModeSpecialist and loads its prompt.
func checkSpecialist(opts Options) (*prompts.Prompt, error) {
	if opts.Gleanings > 0 {
		return nil, fmt.Errorf("new extractor: gleanings %d: the specialist mode holds no conversation; set gleanings to 0", opts.Gleanings)
	}
	if opts.Format != FormatLines {
		return nil, fmt.Errorf("new extractor: format %q: the specialist was trained to write %s", opts.Format, FormatLines)
	}
	return prompts.Load("extract_specialist.tmpl")
}

// specialistPrompt renders the specialist's prompt for one chunk: the
// schema's entity types (else DefaultEntityTypes) and predicates, and the
// chunk's text with its white space runs made single spaces, as in
// training.
func (e *Extractor) specialistPrompt(c kg.Chunk) (string, error) {
	types := DefaultEntityTypes
	if len(e.opts.Schema.EntityTypes) > 0 {
		types = make([]string, len(e.opts.Schema.EntityTypes))
		for i, t := range e.opts.Schema.EntityTypes {
			types[i] = t.Name
		}
	}
	var preds []string
	for _, r := range e.opts.Schema.RelationTypes {
		preds = append(preds, r.Name)
	}
	return e.prompt.RenderPart("prompt", specialistData{Types: types, Predicates: preds, Passage: strings.Join(strings.Fields(c.Text), " ")})
}

// specialistData is what extract_specialist.tmpl renders.
type specialistData struct {
	Types      []string
	Predicates []string
	Passage    string
}
