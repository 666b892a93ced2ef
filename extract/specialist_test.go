package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"kgforge/kg"
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
