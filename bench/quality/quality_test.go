package quality

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shared is where the benchmark data lives beside the repository.
var shared = filepath.Join("..", "..", "..", "shared", "benchmarks")

func needData(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(shared, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("benchmark data not here: %v", err)
	}
	return p
}

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"  The  Fantastic-Flying Books! ": "the fantastic flying books",
		"cast_member":                     "cast member",
		"René Goscinny":                   "rené goscinny",
		"":                                "",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatch_CountsAndAliases(t *testing.T) {
	it := Item{
		Gold: []Triple{{"Willi Schneider", "country of citizenship", "Germany"}, {"Willi Schneider", "place of birth", "Mediaș"}},
		Aliases: map[string][]string{
			"willi schneider": {"schneider", "willi schneider"},
			"schneider":       {"schneider", "willi schneider"},
		},
	}
	pred := []Triple{
		{"Schneider", "country_of_citizenship", "germany"}, // alias + normalised relation
		{"Schneider", "country of citizenship", "Germany"}, // the same fact again: a false positive
		{"Schneider", "sibling", "Germany"},
	}
	c, m := Match(it, pred)
	if c != (Counts{TP: 1, FP: 2, FN: 1}) || m[0] != 0 || m[1] != -1 {
		t.Errorf("counts %+v matched %v", c, m)
	}
}

func TestSummarize_MicroAverageAndInterval(t *testing.T) {
	per := []Counts{{TP: 1, FP: 1}, {TP: 2, FN: 2}, {FP: 1, FN: 1}, {TP: 3}}
	s := Summarize(per, 1)
	if s.TP != 6 || s.FP != 2 || s.FN != 3 {
		t.Fatalf("totals %+v", s)
	}
	if s.Precision != 0.75 || s.Recall != 6.0/9 {
		t.Errorf("P %v R %v", s.Precision, s.Recall)
	}
	if !(s.F1CI[0] <= s.F1 && s.F1 <= s.F1CI[1]) || s.F1CI[0] == s.F1CI[1] {
		t.Errorf("F1 %v outside or degenerate interval %v", s.F1, s.F1CI)
	}
	if again := Summarize(per, 1); again != s {
		t.Error("same seed, different result")
	}
}

func TestLoadText2KG_GroupsSentencesAndReadsBothShapes(t *testing.T) {
	items, err := LoadText2KG(needData(t, "text2kgbench/wikidata_tekgen/validation/ont_1_movie_validation.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines, gold := 0, 0
	raw, _ := os.ReadFile(filepath.Join(shared, "text2kgbench/wikidata_tekgen/validation/ont_1_movie_validation.jsonl"))
	lines = strings.Count(string(raw), "\n")
	for _, it := range items {
		gold += len(it.Gold)
		if it.Ontology != "ont_1_movie" || it.Text == "" {
			t.Fatalf("item %+v", it)
		}
	}
	if gold != lines || len(items) >= lines {
		t.Errorf("%d items with %d gold triples from %d lines; want every line's triple, sentences grouped", len(items), gold, lines)
	}
	web, err := LoadText2KG(needData(t, "text2kgbench/dbpedia_webnlg/train/ont_10_comicscharacter_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if g := web[0].Gold[0]; g.Subject != "Airman" || g.Object != "Harry Sahle" {
		t.Errorf("dbpedia labels: %+v", g)
	}
	ont, err := LoadOntology(needData(t, "text2kgbench/wikidata_tekgen/ontologies/1_movie_ontology.json"))
	if err != nil {
		t.Fatal(err)
	}
	if ont.ID != "ont_1_movie" || ont.Relations[0] != (Relation{"director", "film", "human"}) {
		t.Errorf("ontology %+v", ont.Relations[0])
	}
}

func TestLoadReDocRED_TextSentencesAndEvidence(t *testing.T) {
	items, err := LoadReDocRED(needData(t, "redocred/dev_revised.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 500 {
		t.Fatalf("%d documents, want 500", len(items))
	}
	triples := 0
	for _, it := range items {
		triples += len(it.Gold)
		for _, s := range it.Sentences {
			if s[0] > s[1] || s[1] > len(it.Text) {
				t.Fatalf("%s: sentence span %v outside text", it.ID, s)
			}
		}
	}
	if triples != 17284 {
		t.Errorf("%d gold triples, want the 17,284 of the README", triples)
	}
	d := items[0]
	if !strings.HasPrefix(d.Text, "Wilfried \" Willi \" Schneider ( born 13 March 1963") || d.Gold[0].Relation != "start time" {
		t.Errorf("first document: %q %+v", d.Text[:60], d.Gold[0])
	}
	ev := d.Evidence[0][0]
	s := d.Sentences[ev]
	if in, ok := EvidenceInGold(d, 0, s[0], s[1]); !in || !ok {
		t.Error("the evidence sentence itself is not inside the gold evidence")
	}
	if s := Sample(items, 40, 7); len(s) != 40 || s[0].ID != Sample(items, 40, 7)[0].ID {
		t.Error("sample not fixed by its seed")
	}
}

func TestDetok(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		want   string
	}{
		{"punctuation and brackets", []string{"He", "said", ",", "it", "(", "the", "$", "5", ")", "."}, "He said, it (the $5)."},
		{"clitics", []string{"it", "'s", "do", "n't"}, "it's don't"},
		{"quotes", []string{"``", "Go", "''"}, `"Go"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detok(tt.tokens); got != tt.want {
				t.Errorf("Detok(%q) = %q, want %q", tt.tokens, got, tt.want)
			}
		})
	}
}
