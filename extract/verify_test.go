package extract

import (
	"context"
	"math"
	"reflect"
	"testing"

	"kgforge/kg"
)

// groundedVelora grounds a scripted reply (the model's output stands for
// any model's: it is hostile content either way) on the Velora chunk: an
// exact, a fuzzy and a case-folded piece of evidence, and three entities.
func groundedVelora(t *testing.T, opts Options) (*Extractor, kg.Chunk, Result) {
	t.Helper()
	reply := `{"triplets":[
	 {"evidence":"Velora Cycles buys aluminum frames from Kestrel Alloys","subject":"Velora Cycles","subject_type":"company","predicate":"supplies","object":"Kestrel Alloys","object_type":"company"},
	 {"evidence":"kestrel alloys is based in  Sheffield.","subject":"kestrel alloys","subject_type":"company","predicate":"basedIn","object":"Sheffield","object_type":"city"},
	 {"evidence":"Velora Cycles makes city bikes in Porto.","subject":"Velora Cycles","subject_type":"company","predicate":"basedIn","object":"Porto","object_type":"city"}],
	 "entities":[{"name":"Kestrel Alloys","type":"company","description":" a supplier "},{"name":"porto","type":"city","description":""},{"name":"Sheffield","type":"city"}]}`
	opts.Model, opts.Evidence = "m", EvidenceQuote
	ex, err := New(&scripted{replies: []string{reply}}, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := veloraChunk()
	res, err := ex.Process(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return ex, c, res
}

// TestExtractor_VerifyKeepsWhatGroundingKept: what Process kept, checked
// again, is kept whole, with or without a schema.
func TestExtractor_VerifyKeepsWhatGroundingKept(t *testing.T) {
	schema := Schema{
		EntityTypes:   []EntityType{{Name: "Company"}, {Name: "City"}},
		RelationTypes: []RelationType{{Name: "supplies", Domain: "Company", Range: "Company"}, {Name: "basedIn", Domain: "Company", Range: "City"}},
	}
	for name, opts := range map[string]Options{"free": {}, "schema": {Schema: schema}} {
		t.Run(name, func(t *testing.T) {
			ex, c, res := groundedVelora(t, opts)
			if len(res.Triplets) != 3 || len(res.Entities) != 3 {
				t.Fatalf("grounded %d triplets and %d entities, want 3 and 3: %+v", len(res.Triplets), len(res.Entities), res)
			}
			kept, drops := ex.Verify(c, res)
			if len(drops) != 0 || !reflect.DeepEqual(kept, res) {
				t.Errorf("Verify dropped %+v; kept %+v, want %+v", drops, kept, res)
			}
		})
	}
}

// TestExtractor_VerifyDropsWhatGroundingWouldNotKeep: a stored triplet or
// entity changed after grounding (a fact in no source, a span, a model,
// a confidence, another chunk) is dropped with the reason.
func TestExtractor_VerifyDropsWhatGroundingWouldNotKeep(t *testing.T) {
	ex, c, res := groundedVelora(t, Options{})
	good := res.Triplets[2]
	forged := good
	forged.Subject.Surface, forged.Object.Surface = "Evil Forged Corp", "Delta Parts"
	forged.Predicate, forged.Evidence = "supplies", "Evil Forged Corp supplies Delta Parts."
	forged.Subject.ID = kg.ID("mention", c.ID, "Evil Forged Corp", "Company")
	forged.Object.ID = kg.ID("mention", c.ID, "Delta Parts", "Company")
	forged.ID = kg.ID("triplet", c.ID, kg.NormalizeName("Evil Forged Corp"), "supplies", kg.NormalizeName("Delta Parts"))
	for _, tc := range []struct {
		name  string
		edit  func(*kg.Triplet)
		chunk func(*kg.Chunk)
		want  string
	}{
		{"a fact in no source", func(t *kg.Triplet) { *t = forged }, nil, DropEvidenceNotFound},
		{"evidence of the chunk, subject of none", func(t *kg.Triplet) { t.Subject.Surface = "Mallory" }, nil, DropSubjectNotFound},
		{"another chunk", func(t *kg.Triplet) { t.ChunkID, t.Subject.ChunkID, t.Object.ChunkID = "c2", "c2", "c2" }, nil, DropOtherChunk},
		{"a span that holds other words", func(t *kg.Triplet) { t.EvidenceSpan.Start -= 5 }, nil, DropNotAsGrounded},
		{"a span out of the chunk", func(t *kg.Triplet) { t.Object.Span = kg.Span{Start: -4, End: 2} }, nil, DropNotAsGrounded},
		{"another model", func(t *kg.Triplet) { t.Model = "other" }, nil, DropNotAsGrounded},
		{"another prompt version", func(t *kg.Triplet) { t.PromptVersion = "v0" }, nil, DropNotAsGrounded},
		{"a confidence above the evidence's", func(t *kg.Triplet) { t.Confidence = 2 }, nil, DropNotAsGrounded},
		{"no confidence at all", func(t *kg.Triplet) { t.Confidence = math.NaN() }, nil, DropNotAsGrounded},
		{"a validity grounding never gives", func(t *kg.Triplet) { t.ValidFrom = "2020-01-01" }, nil, DropNotAsGrounded},
		{"another id", func(t *kg.Triplet) { t.ID = "x" }, nil, DropNotAsGrounded},
		{"another type", func(t *kg.Triplet) { t.Object.Type = "Country" }, nil, DropNotAsGrounded},
		{"a chunk with no sentence", nil, func(c *kg.Chunk) { c.Text = "# Porto" }, DropNoSentence},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, ch := good, c
			if tc.edit != nil {
				tc.edit(&tr)
			}
			if tc.chunk != nil {
				tc.chunk(&ch)
			}
			kept, drops := ex.Verify(ch, Result{Triplets: []kg.Triplet{res.Triplets[0], tr}})
			wantKept := 1
			if tc.chunk != nil {
				wantKept = 0
			}
			if len(kept.Triplets) != wantKept || len(drops) != 2-wantKept || drops[len(drops)-1] != (Drop{ID: tr.ID, Reason: tc.want}) {
				t.Errorf("kept %d triplets, dropped %+v; want %d kept and %s dropped as %s", len(kept.Triplets), drops, wantKept, tr.ID, tc.want)
			}
		})
	}

	dup := Result{Triplets: []kg.Triplet{good, good}}
	if kept, drops := ex.Verify(c, dup); len(kept.Triplets) != 1 || len(drops) != 1 || drops[0].Reason != DropDuplicate {
		t.Errorf("a triplet stored twice: kept %d, dropped %+v", len(kept.Triplets), drops)
	}

	ent := res.Entities[0]
	for name, edit := range map[string]func(*kg.Mention){
		"a name in no source":  func(m *kg.Mention) { m.Surface = "Evil Forged Corp" },
		"a span of other text": func(m *kg.Mention) { m.Span.Start++ },
		"another chunk":        func(m *kg.Mention) { m.ChunkID = "c2" },
	} {
		m := ent
		edit(&m)
		if kept, drops := ex.Verify(c, Result{Entities: []kg.Mention{m}}); len(kept.Entities) != 0 || len(drops) != 1 {
			t.Errorf("entity with %s: kept %+v, dropped %+v", name, kept.Entities, drops)
		}
	}
}
