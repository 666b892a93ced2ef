package pipelines

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad_GoodFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.good.yaml")
	files = append(files, "example.yaml")
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			p, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if p.Chunking.Size == 0 || p.LLM.Concurrency == 0 || p.Neo4j.Mode == "" || len(p.SHA256) != 64 {
				t.Errorf("defaults not set: %+v", p)
			}
		})
	}
}

func TestLoad_BadFilesReportEveryProblem(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.bad.yaml")
	if len(files) == 0 {
		t.Fatal("no bad fixtures")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			_, err := Load(f)
			if err == nil {
				t.Fatal("want error")
			}
			want, rerr := os.ReadFile(strings.TrimSuffix(f, ".yaml") + ".txt")
			if rerr != nil {
				t.Fatal(rerr)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
				if !strings.Contains(err.Error(), line) {
					t.Errorf("error lacks %q\nfull error:\n%v", line, err)
				}
			}
			if !strings.Contains(err.Error(), f) {
				t.Errorf("error does not name the file %s", f)
			}
		})
	}
}

func TestPipeline_ResolveIsRelativeToTheFile(t *testing.T) {
	p := &Pipeline{Path: "pipelines/example.yaml"}
	if got := p.Resolve("../out"); got != "out" {
		t.Errorf("Resolve = %q", got)
	}
	if got := p.Resolve("/abs/x"); got != "/abs/x" {
		t.Errorf("Resolve abs = %q", got)
	}
}

func TestLoad_ExtractSchema(t *testing.T) {
	p, err := Load("testdata/schema.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	x := p.Extract
	if x.Prompt != "extract.tmpl" || x.Evidence != EvidenceQuote || x.Gleanings != 1 || x.Schema == nil {
		t.Fatalf("extract = %+v", x)
	}
	s := *x.Schema
	if len(s.EntityTypes) != 3 || s.EntityTypes[0] != (EntityType{Name: "Company", Description: "a business that makes or sells things"}) || s.EntityTypes[2].Description != "" {
		t.Errorf("entity types = %+v", s.EntityTypes)
	}
	want := RelationType{Name: "supplies", Description: "the subject sells the object to another company", Domain: "Company", Range: "Material"}
	if len(s.RelationTypes) != 3 || s.RelationTypes[0] != want || s.RelationTypes[2] != (RelationType{Name: "partner_of"}) {
		t.Errorf("relation types = %+v", s.RelationTypes)
	}
	d, err := Parse([]byte("name: x\nsources: [{name: a, paths: ['*.md']}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Extract.Schema != nil || d.Extract.Evidence != EvidenceSentences || d.Extract.Gleanings != 0 {
		t.Errorf("defaults: %+v", d.Extract)
	}
}

func TestLoad_LimitsPerSource(t *testing.T) {
	p, err := Load("testdata/limits.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{MaxTextBytes: 1 << 20, MaxChunks: 500, MaxTokens: 100_000, MaxWordBytes: 2048, MaxBuildTokens: 50_000}
	if p.Limits != want {
		t.Errorf("limits = %+v, want %+v", p.Limits, want)
	}
}

func TestLoad_LinkBlock(t *testing.T) {
	p, err := Load("testdata/link.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l := p.Link
	if l.MaxRowEntities != 2000 || l.High != 0.9 || l.Low != 0.7 || len(l.Tables) != 3 {
		t.Fatalf("link = %+v", l)
	}
	if o := l.Tables["orders"]; o.Entity == nil || *o.Entity {
		t.Errorf("orders = %+v, want entity: false", o)
	}
	if s := l.Tables["suppliers"]; s.Entity != nil || s != (LinkTable{Type: "Supplier", Name: "name", Key: "supplier_id"}) {
		t.Errorf("suppliers = %+v", s)
	}
	if pl := l.Tables["plants"]; pl.Entity == nil || !*pl.Entity {
		t.Errorf("plants = %+v, want entity: true", pl)
	}
	d, err := Parse([]byte("name: x\nsources: [{name: a, paths: ['*.md']}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Link.MaxRowEntities != 0 || d.Link.Tables != nil {
		t.Errorf("a pipeline without link: has %+v, want the zero block (defaults taken by the link step)", d.Link)
	}
}

func TestLoad_ExtractModeDefaultsToAutoAndThinkToOff(t *testing.T) {
	p, err := Parse([]byte("name: x\nsources: [{name: d, paths: [\"*.md\"]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Extract.Mode != ExtractAuto || p.Extract.Think {
		t.Errorf("extract.mode %q, think %v: want auto and false", p.Extract.Mode, p.Extract.Think)
	}
	p, err = Load("testdata/extract-mode.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Extract.Mode != ExtractCompletion || !p.Extract.Think {
		t.Errorf("extract.mode %q, think %v: want completion and true", p.Extract.Mode, p.Extract.Think)
	}
}

func TestLoad_Gates(t *testing.T) {
	p, err := Load("testdata/gates.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := p.Gates
	if g.MaxNodeDrop == nil || *g.MaxNodeDrop != 10 || g.MaxEdgeDrop == nil || *g.MaxEdgeDrop != 0 ||
		g.MaxMergeGrowth == nil || *g.MaxMergeGrowth != 50 || g.NewSourceFailures != GateFail || g.Count() != 4 {
		t.Errorf("gates = %+v", g)
	}
	d, err := Parse([]byte("name: x\nsources: [{name: a, paths: ['*.md']}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Gates.Count() != 0 || d.Gates.NewSourceFailures != GateAllow {
		t.Errorf("default gates = %+v, want none set", d.Gates)
	}
}

func TestLoad_EndpointsMakeConcurrencyTheSumOfTheirSlots(t *testing.T) {
	p, err := Load("testdata/endpoints.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LLM.Endpoints) != 2 || p.LLM.Endpoints[1].URL != "127.0.0.1:11441" || p.LLM.Concurrency != 3 {
		t.Errorf("llm = %+v; want two endpoints and concurrency 3 (2+1 slots)", p.LLM)
	}
	p, err = Parse([]byte("name: x\nsources: [{name: d, paths: ['*.md']}]\nllm: {concurrency: 3, endpoints: [{url: 'h:1', slots: 3}]}\n"))
	if err != nil || p.LLM.Concurrency != 3 {
		t.Errorf("concurrency set to the sum of slots: %v, %+v", err, p)
	}
}
