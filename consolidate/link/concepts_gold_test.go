package link

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/goccy/go-yaml"

	"kgforge/kg"
)

// conceptGold is the part of the example's gold file (bench/linkq) that
// says which concept is which table or column and what each stated rule
// speaks of.
type conceptGold struct {
	Concepts []struct {
		Concept  string   `yaml:"concept"`
		Names    []string `yaml:"names"`
		Targets  []string `yaml:"targets"`
		Also     []string `yaml:"also"`
		Optional bool     `yaml:"optional"`
	} `yaml:"concepts"`
	Rules []struct {
		Rule    string   `yaml:"rule"`
		Targets []string `yaml:"targets"`
		Also    []string `yaml:"also"`
	} `yaml:"rules"`
}

func loadConceptGold(t *testing.T) conceptGold {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "bench", "linkq", "testdata", "bikeco.gold.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g conceptGold
	if err := yaml.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// goldScore counts the linked links against the right targets of each
// source name: a link to a target is right, one to an "also" target is
// neither right nor wrong, any other is wrong; a right target of a required
// source left unlinked is missed.
type goldScore struct{ right, wrong, missed int }

func (s goldScore) precision() float64 { return float64(s.right) / float64(max(1, s.right+s.wrong)) }

func (s goldScore) recall() float64 { return float64(s.right) / float64(max(1, s.right+s.missed)) }

func scoreAgainstGold(t *testing.T, links []kg.Link, right, also map[string][]string, required map[string]bool) goldScore {
	t.Helper()
	var s goldScore
	linked := map[string][]string{}
	for _, l := range links {
		if l.Band == kg.LinkBandLinked {
			linked[kg.NormalizeName(l.SrcName)] = append(linked[kg.NormalizeName(l.SrcName)], l.Target)
		}
	}
	for name, got := range linked {
		for _, x := range got {
			switch {
			case slices.Contains(right[name], x):
				s.right++
			case !slices.Contains(also[name], x):
				s.wrong++
				t.Logf("wrong: %s → %s", name, x)
			}
		}
	}
	for name, want := range right {
		for _, x := range want {
			if required[name] && !slices.Contains(linked[name], x) {
				s.missed++
				t.Logf("missed: %s → %s", name, x)
			}
		}
	}
	return s
}

// TestConcepts_GoldConceptNamesOfTheExample links every concept name of
// the gold file, as nodes, to the example's tables by names and values
// alone (the name-only path) and scores the links against the gold.
func TestConcepts_GoldConceptNamesOfTheExample(t *testing.T) {
	goldConceptNames(t, nil)
}

// TestConceptsGoldConceptNamesIntegration does the same with the real
// embed model.
func TestConceptsGoldConceptNamesIntegration(t *testing.T) {
	goldConceptNames(t, realEmbedder(t))
}

func goldConceptNames(t *testing.T, emb Embedder) {
	g := loadConceptGold(t)
	right, also, required := map[string][]string{}, map[string][]string{}, map[string]bool{}
	var nodes []kg.Node
	for _, c := range g.Concepts {
		for _, n := range c.Names {
			k := kg.NormalizeName(n)
			if _, ok := right[k]; !ok {
				nodes = append(nodes, conceptNode(n, "concept"))
			}
			right[k] = append(right[k], c.Targets...)
			also[k] = append(also[k], c.Also...)
			required[k] = required[k] || !c.Optional
		}
	}
	links, _, err := Concepts(context.Background(), nodes, conceptExampleTables(t), emb, Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := scoreAgainstGold(t, links, right, also, required)
	t.Logf("%d names: %d right, %d wrong, %d missed: precision %.2f, recall %.2f", len(nodes), s.right, s.wrong, s.missed, s.precision(), s.recall())
	if s.precision() < 0.85 || s.recall() < 0.85 {
		t.Errorf("precision %.2f, recall %.2f: want both at least 0.85", s.precision(), s.recall())
	}
}

// TestRules_GoldRulesOfTheExample reads the example's documents for rules
// and scores their column links against the gold file's rules.
func TestRules_GoldRulesOfTheExample(t *testing.T) {
	g := loadConceptGold(t)
	right, also, required := map[string][]string{}, map[string][]string{}, map[string]bool{}
	for _, r := range g.Rules {
		k := kg.NormalizeName(r.Rule)
		right[k], also[k], required[k] = r.Targets, r.Also, true
	}
	var chunks []kg.Chunk
	dir := filepath.Join("..", "..", "examples", "bikeco", "docs")
	for _, f := range []string{"company-overview.md", "customers-and-sales.txt", "incident-2025-03-cracked-frames.md", "operating-rules.md", "suppliers.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, ruleChunk(f, string(b)))
	}
	_, links, _ := Rules(chunks, conceptExampleTables(t), Config{})
	s := scoreAgainstGold(t, links, right, also, required)
	t.Logf("%d gold rules: %d right, %d wrong, %d missed: precision %.2f, recall %.2f", len(g.Rules), s.right, s.wrong, s.missed, s.precision(), s.recall())
	if s.wrong > 0 || s.recall() < 0.7 {
		t.Errorf("%d wrong, recall %.2f: want none wrong and recall at least 0.7", s.wrong, s.recall())
	}
}
