package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kgforge/kg"
	"kgforge/llm"
)

// TestSpecialistPrompt_MatchesTraining renders the cases that the training
// recipe rendered (training/tests/prompt_cases.json, written by
// training/kgtrain/prompt.py) and wants the same bytes: the model knows
// only the prompt it was trained on.
func TestSpecialistPrompt_MatchesTraining(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "training", "tests", "prompt_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Passage    string   `json:"passage"`
		Types      []string `json:"types"`
		Predicates []string `json:"predicates"`
		Prompt     string   `json:"prompt"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 3 {
		t.Fatalf("%d cases, want at least 3", len(cases))
	}
	for i, c := range cases {
		var s Schema
		for _, ty := range c.Types {
			s.EntityTypes = append(s.EntityTypes, EntityType{Name: ty})
		}
		for _, p := range c.Predicates {
			s.RelationTypes = append(s.RelationTypes, RelationType{Name: p})
		}
		e, err := New(nil, nil, Options{Model: "kgforge-extract", Mode: ModeSpecialist, Schema: s})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, err := e.completionPrompt(kg.Chunk{ID: "c", Text: c.Passage})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got != c.Prompt {
			t.Errorf("case %d:\n got %q\nwant %q", i, got, c.Prompt)
		}
	}
}

func TestNew_SpecialistOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr bool
	}{
		{"lines by default", Options{Mode: ModeSpecialist}, false},
		{"json refused", Options{Mode: ModeSpecialist, Format: FormatJSON}, true},
		{"gleanings refused", Options{Mode: ModeSpecialist, Gleanings: 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(nil, nil, tt.opts)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && (e.opts.Format != FormatLines || len(e.examples) != 0) {
				t.Errorf("format %q, %d examples; want lines, none", e.opts.Format, len(e.examples))
			}
		})
	}
}

func TestPromptVersion_SpecialistDiffersFromCompletion(t *testing.T) {
	sp, err := New(nil, nil, Options{Mode: ModeSpecialist})
	if err != nil {
		t.Fatal(err)
	}
	co, err := New(nil, nil, Options{Mode: ModeCompletion, Format: FormatLines})
	if err != nil {
		t.Fatal(err)
	}
	if sp.PromptVersion() == co.PromptVersion() || sp.PromptVersion()[:11] != "specialist:" {
		t.Errorf("specialist %q, completion %q: want distinct, specialist: first", sp.PromptVersion(), co.PromptVersion())
	}
}

func TestWindows_ConsecutiveRunsOfWholeSentences(t *testing.T) {
	s := []string{strings.Repeat("a", 34) + ".", strings.Repeat("b", 34) + ".", strings.Repeat("c", 200) + ".", "d."} // 9, 9, 50, 1 tokens
	cases := []struct {
		max  int
		want [][]string
	}{
		{0, [][]string{s}},
		{20, [][]string{s[:2], s[2:3], s[3:]}}, // a sentence over the window is a run alone
		{25, [][]string{s[:2], s[2:3], s[3:]}},
		{60, [][]string{s[:2], s[2:]}},
		{1000, [][]string{s}},
	}
	for _, c := range cases {
		if got := windows(s, c.max); !reflect.DeepEqual(got, c.want) {
			t.Errorf("windows(%d) = %d runs %v, want %d", c.max, len(got), got, len(c.want))
		}
	}
}

// TestExtractor_SpecialistReadsAChunkInWindows: a chunk longer than the
// window goes to the model as runs of its sentences, one call each; every
// run's facts are grounded in the whole chunk; Window -1 reads it whole,
// and the other modes always do.
func TestExtractor_SpecialistReadsAChunkInWindows(t *testing.T) {
	sents := []string{
		"Velora Cycles buys aluminium frames from Kestrel Alloys.",
		"Kestrel Alloys is based in Sheffield.",
		"Velora Cycles makes city bikes in Porto.",
		"Serra Brakes supplies the disc brake sets.",
	}
	c := kg.Chunk{ID: "c1", Text: strings.Join(sents, "\n")}
	replies := []llm.ChatResponse{
		stop("Kestrel Alloys | Organization | supplies | Velora Cycles | Organization\nEND"),
		stop("Velora Cycles | Organization | based_in | Porto | Location\nEND"),
	}
	fake := &scriptedGen{replies: slices.Clone(replies)}
	ex, err := New(fake, nil, Options{Model: "m", Mode: ModeSpecialist, Window: 26})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Process(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.gens) != 2 {
		t.Fatalf("%d calls, want 2 (windows of 26 tokens over sentences of 15, 10, 11 and 11)", len(fake.gens))
	}
	for i, want := range [][]string{sents[:2], sents[2:]} {
		p := fake.gens[i].Prompt
		if !strings.Contains(p, "Passage: "+strings.Join(want, " ")+"\n") {
			t.Errorf("call %d: prompt %q, want the passage %q", i, p, strings.Join(want, " "))
		}
	}
	if len(res.Triplets) != 2 || res.Triplets[1].Evidence != sents[2] {
		t.Errorf("kept %+v; want a fact of each window, evidence from the chunk", res.Triplets)
	}
	if st := ex.Stats(); st.Calls != 2 || st.Chunks != 1 || st.Kept != 2 {
		t.Errorf("stats %+v; want one chunk, two calls, two kept", st)
	}

	for _, o := range []Options{{Model: "m", Mode: ModeSpecialist, Window: -1}, {Model: "m", Mode: ModeCompletion, Format: FormatLines, Window: 26}} {
		fake = &scriptedGen{replies: slices.Clone(replies)}
		ex, err = New(fake, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ex.Process(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if len(fake.gens) != 1 {
			t.Errorf("mode %s, window %d: %d calls, want the chunk whole in one", o.Mode, o.Window, len(fake.gens))
		}
	}
}
