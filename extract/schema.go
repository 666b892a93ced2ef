package extract

import (
	"encoding/json"
	"strings"
	"unicode"

	"kgforge/kg"
)

// Schema is a pipeline's vocabulary: the entity types and relation types
// the extractor may propose. A zero Schema leaves types and predicates free
// (they are normalised instead, see NormalizeType and NormalizePredicate).
type Schema struct {
	EntityTypes   []EntityType   `json:"entity_types,omitempty"`
	RelationTypes []RelationType `json:"relation_types,omitempty"`
}

// EntityType is one allowed entity type.
type EntityType struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// RelationType is one allowed predicate. Domain and Range, when set, name
// the entity types its subject and object must have.
type RelationType struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Domain      string `json:"domain,omitempty"`
	Range       string `json:"range,omitempty"`
}

// IsZero reports whether the schema constrains nothing.
func (s Schema) IsZero() bool { return len(s.EntityTypes) == 0 && len(s.RelationTypes) == 0 }

// digest identifies the schema, descriptions included (they are in the
// prompt); "" for the zero schema.
func (s Schema) digest() string {
	if s.IsZero() {
		return ""
	}
	b, _ := json.Marshal(s) // strings and slices of them always marshal
	return kg.ID("schema", string(b))
}

// vocabulary maps the normalised form of each allowed name to the name as
// the schema spells it; nil means free.
type vocabulary map[string]string

func (s Schema) entityTypes() vocabulary {
	if len(s.EntityTypes) == 0 {
		return nil
	}
	v := vocabulary{}
	for _, t := range s.EntityTypes {
		v[NormalizeType(t.Name)] = t.Name
	}
	return v
}

// relations maps each relation's normalised name, and its compact form
// (the same without separators, so "birthPlace", "birth place" and
// "birth_place" all find birthPlace), to the relation; a compact form two
// relations share finds neither.
func (s Schema) relations() map[string]RelationType {
	if len(s.RelationTypes) == 0 {
		return nil
	}
	v := map[string]RelationType{}
	for _, r := range s.RelationTypes {
		v[NormalizePredicate(r.Name)] = r
	}
	compact := map[string]RelationType{}
	shared := map[string]bool{}
	for _, r := range s.RelationTypes {
		k := compactPredicate(NormalizePredicate(r.Name))
		if prev, ok := compact[k]; ok && prev.Name != r.Name {
			shared[k] = true
		}
		compact[k] = r
	}
	for k, r := range compact {
		if _, exact := v[k]; !exact && !shared[k] {
			v[k] = r
		}
	}
	return v
}

// lookupRelation returns the relation a normalised predicate names, by
// its normalised or its compact form.
func lookupRelation(rels map[string]RelationType, pred string) (RelationType, bool) {
	if r, ok := rels[pred]; ok {
		return r, true
	}
	r, ok := rels[compactPredicate(pred)]
	return r, ok
}

func compactPredicate(p string) string { return strings.ReplaceAll(p, "_", "") }

// typeName returns the type as the output spells it: the schema's name when
// there is a schema (ok false when the type is not in it), else normalised.
func (v vocabulary) typeName(t string) (string, bool) {
	n := NormalizeType(t)
	if v == nil {
		return n, true
	}
	name, ok := v[n]
	return name, ok
}

// typeFromRelation returns the type a relation's domain or range gives a
// name whose written type the schema does not have (known false); a known
// type, or a relation without that side, stays as it was.
func (v vocabulary) typeFromRelation(t string, known bool, side string) (string, bool) {
	if known || side == "" {
		return t, known
	}
	return v.typeName(side)
}

// maxTriplets and maxEntities bound the reply: a small model at temperature
// 0 otherwise tends to repeat one item until the output-token bound cuts it.
const (
	maxTriplets    = 6
	maxEntities    = 8
	maxDescription = 120 // characters of an entity's description
)

// SchemaFor returns the JSON schema the model's reply must follow for a
// chunk. With sentences, the evidence is an enum of them, so the grammar
// itself keeps the model from inventing a quote (subject and object still
// have to be found in it); with none, the evidence is a free quote that
// Locate must find. The evidence comes first: the grammar Ollama builds
// follows the order of the properties. With a vocabulary, types and
// predicates are enums of its names.
func SchemaFor(sentences []string, vocab Schema) json.RawMessage {
	str := map[string]any{"type": "string"}
	evidence, typ, pred := str, str, str
	if sentences != nil {
		evidence = map[string]any{"type": "string", "enum": sentences}
	}
	if len(vocab.EntityTypes) > 0 {
		names := make([]string, len(vocab.EntityTypes))
		for i, t := range vocab.EntityTypes {
			names[i] = t.Name
		}
		typ = map[string]any{"type": "string", "enum": names}
	}
	if len(vocab.RelationTypes) > 0 {
		names := make([]string, len(vocab.RelationTypes))
		for i, r := range vocab.RelationTypes {
			names[i] = r.Name
		}
		pred = map[string]any{"type": "string", "enum": names}
	}
	triplet := map[string]any{
		"type": "object",
		"properties": orderedProps{
			{"evidence", evidence},
			{"subject", str},
			{"subject_type", typ},
			{"predicate", pred},
			{"object", str},
			{"object_type", typ},
		},
		"required": []string{"evidence", "subject", "subject_type", "predicate", "object", "object_type"},
	}
	entity := map[string]any{
		"type": "object",
		"properties": orderedProps{
			{"name", str},
			{"type", typ},
			{"description", map[string]any{"type": "string", "maxLength": maxDescription}},
		},
		"required": []string{"name", "type", "description"},
	}
	// Triplets come first: when the output-token bound cuts the reply, the
	// facts are whole and only the entity list is short.
	schema := map[string]any{
		"type": "object",
		"properties": orderedProps{
			{"triplets", map[string]any{"type": "array", "maxItems": maxTriplets, "items": triplet}},
			{"entities", map[string]any{"type": "array", "maxItems": maxEntities, "items": entity}},
		},
		"required": []string{"triplets", "entities"},
	}
	b, _ := json.Marshal(schema) // maps of strings and slices always marshal
	return b
}

// orderedProps marshals as a JSON object that keeps its keys in order: the
// grammar Ollama builds from a schema follows the order of its properties.
type orderedProps []struct {
	key string
	val any
}

func (o orderedProps) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		v, err := json.Marshal(kv.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// NormalizePredicate returns a predicate in lower snake case with only
// letters, digits and underscores.
func NormalizePredicate(p string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.TrimSpace(p) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimRight(b.String(), "_")
}

// NormalizeType returns an entity type in upper camel case ("quality
// incident" → "QualityIncident"); an empty type becomes "Thing".
func NormalizeType(t string) string {
	var b strings.Builder
	upper := true
	for _, r := range strings.TrimSpace(t) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if upper {
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		} else {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "Thing"
	}
	return b.String()
}
