package resolve

import (
	"context"
	"testing"
)

func TestNormalizePredicate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"works_for", "works_for"},
		{"worksFor", "works_for"},
		{"WorksFor", "works_for"},
		{"WORKS_FOR", "works_for"},
		{"works for", "works_for"},
		{"  Works-For!! ", "works_for"},
		{"HTTPServerOf", "http_server_of"},
		{"isCEOOf", "is_ceo_of"},
		{"located_in2020", "located_in2020"},
		{"version2Of", "version2_of"},
		{"employé_par", "employe_par"},
		{"ＷｏｒｋｓＦｏｒ", "works_for"},
		{"__", ""},
	}
	for _, tt := range tests {
		if got := NormalizePredicate(tt.in); got != tt.want {
			t.Errorf("NormalizePredicate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClusterPredicates(t *testing.T) {
	var s space
	work := s.axis()
	parent := s.axis()
	preds := []Predicate{
		{Name: "works_for", Count: 10, Vector: work},
		{Name: "worksFor", Count: 3, Vector: work},
		{Name: "employed_by", Count: 5, Vector: s.near(work, 0.95)},
		{Name: "is employed by", Count: 1, Vector: s.near(work, 0.94)},
		{Name: "parent_of", Count: 4, Vector: parent},
		{Name: "child_of", Count: 4, Vector: s.near(parent, 0.6)},
		{Name: "part_of_2020", Count: 1, Vector: s.axis()},
		{Name: "!!", Count: 1, Vector: s.axis()},
	}
	canon, res, err := ClusterPredicates(context.Background(), preds, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"works_for": "works_for", "worksFor": "works_for", "employed_by": "works_for",
		"is employed by": "works_for", "is_employed_by": "works_for",
		"parent_of": "parent_of", "child_of": "child_of", "part_of_2020": "part_of_2020",
	}
	for k, v := range want {
		if canon[k] != v {
			t.Errorf("canon[%q] = %q, want %q", k, canon[k], v)
		}
	}
	if _, ok := canon["!!"]; ok {
		t.Errorf("a predicate that normalises to nothing is in the map")
	}
	if len(res.Clusters) != 4 {
		t.Errorf("clusters = %d, want 4 (work, parent, child, part)", len(res.Clusters))
	}
	// works_for (10+3 mentions) is canonical over employed_by (5).
	for _, c := range res.Clusters {
		if len(c.Members) == 3 && c.Canonical != "works_for" {
			t.Errorf("canonical = %q, want works_for", c.Canonical)
		}
	}
}

func TestClusterPredicates_Rename(t *testing.T) {
	var s space
	v := s.axis()
	canon, _, err := ClusterPredicates(context.Background(), []Predicate{
		{Name: "works_for", Count: 2, Vector: v},
		{Name: "employed_by", Count: 1, Vector: s.near(v, 0.97)},
	}, Config{Overrides: Overrides{Rename: []Rename{{Member: "employed_by", Name: "Employed By"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if canon["works_for"] != "employed_by" {
		t.Errorf("canon = %v, want both renamed to employed_by", canon)
	}
}
