package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(p Problem) []string {
	var out []string
	for _, r := range p.Records {
		out = append(out, r.Name)
	}
	return out
}

func TestLoadPatstat_OneRecordPerDistinctName(t *testing.T) {
	p := write(t, t.TempDir(), "patstat.csv", `person_id,name,coauthors,classes,lat,lng,cluster_id
1,AKZO NOBEL,JAN  DE VRIES**ANNA SMIT,C09K**B01F,0.0,0.0,569309
2,AKZO NOBEL,PIET JANSEN,C09K,0.0,0.0,569309
3,AKZO NOVEL,,A61K,0.0,0.0,569309
4,ALCATEL,,H04L,0.0,0.0,656303
5,,,H04L,0.0,0.0,656303
`)
	d, err := LoadPatstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Problems) != 1 || d.PerDocument() {
		t.Fatalf("%d problems, want one pooled", len(d.Problems))
	}
	pr := d.Problems[0]
	if got := names(pr); !slices.Equal(got, []string{"AKZO NOBEL", "AKZO NOVEL", "ALCATEL"}) {
		t.Errorf("names %v", got)
	}
	if !slices.Equal(pr.Gold, []int{0, 0, 1}) {
		t.Errorf("gold %v", pr.Gold)
	}
	r := pr.Records[0]
	if r.Mentions != 2 || r.Type != "organization" || r.Description != "patent classes: C09K, B01F" || r.Context != "co-authors: JAN DE VRIES; ANNA SMIT" || r.ID != "patstat:1" {
		t.Errorf("record %+v", r)
	}
	bad := write(t, t.TempDir(), "bad.csv", "person_id,name,cluster_id\n1,ACME,1\n2,ACME,2\n")
	if _, err := LoadPatstat(bad); err == nil {
		t.Error("a name in two clusters: no error")
	}
}

func TestLoadPairs_GoldIsComponentsOfMatches(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "abt.csv", "id|name|description|price\n0|Sony Turntable - PSLX350H|Belt drive|\n1|Bose Acoustimass 5|Speaker system|399\n2||no name|\n")
	write(t, dir, "buy.csv", "id|name|description|price\n0|Sony PS-LX350H Turntable||\n1|Sony PSLX350H|spare listing|\n2|Canon EOS|camera|\n")
	write(t, dir, "gt.csv", "D1|D2\n0|0\n0|1\n2|2\n")
	d, err := LoadPairs(dir, abtBuy)
	if err != nil {
		t.Fatal(err)
	}
	pr := d.Problems[0]
	wantIDs := []string{"abt:0", "abt:1", "buy:0", "buy:1", "buy:2"}
	var ids []string
	for _, r := range pr.Records {
		ids = append(ids, r.ID)
		if r.Type != "product" || r.Mentions != 1 {
			t.Errorf("record %+v", r)
		}
	}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("ids %v, want %v (the nameless abt:2 left out)", ids, wantIDs)
	}
	// abt:0 = buy:0 = buy:1; abt:1 and buy:2 alone (its match had no name).
	if want := []int{0, 1, 0, 0, 2}; !sameClusters(pr.Gold, want) {
		t.Errorf("gold %v, want clusters of %v", pr.Gold, want)
	}
	if pr.Records[0].Description != "Belt drive" {
		t.Errorf("description %q", pr.Records[0].Description)
	}
}

func TestLoadPairs_DBLPDescription(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "dblp.csv", "id%title%authors%venue%year\n0%Semantic Integration%D. Scott Mackay%SIGMOD Record%1999\n")
	write(t, dir, "acm.csv", "id%title%authors%venue%year\n0%Semantic integration%D. S. Mackay%%1999\n")
	write(t, dir, "gt.csv", "D1%D2\n0%0\n")
	d, err := LoadPairs(dir, dblpACM)
	if err != nil {
		t.Fatal(err)
	}
	pr := d.Problems[0]
	if pr.Records[0].Description != "D. Scott Mackay; SIGMOD Record; 1999" || pr.Records[1].Description != "D. S. Mackay; 1999" {
		t.Errorf("descriptions %q, %q", pr.Records[0].Description, pr.Records[1].Description)
	}
	if pr.Gold[0] != pr.Gold[1] || pr.Records[1].Type != "publication" {
		t.Errorf("gold %v records %+v", pr.Gold, pr.Records)
	}
}

func TestLoadReDocRED_DistinctSurfaceFormsPerEntity(t *testing.T) {
	p := write(t, t.TempDir(), "dev.json", `[{"title": "Willi Schneider",
	  "sents": [["Willi", "Schneider", "was", "born", "in", "Mediaș", "."], ["Schneider", "won", "."]],
	  "vertexSet": [
	    [{"name": "Willi Schneider", "type": "PER", "sent_id": 0}, {"name": "Schneider", "type": "PER", "sent_id": 1}, {"name": "Schneider", "type": "PER", "sent_id": 1}],
	    [{"name": "Mediaș", "type": "LOC", "sent_id": 0}]
	  ], "labels": []},
	 {"title": "empty", "sents": [], "vertexSet": [], "labels": []}]`)
	d, err := LoadReDocRED(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Problems) != 2 || !d.PerDocument() {
		t.Fatalf("%d problems, want one per document", len(d.Problems))
	}
	pr := d.Problems[0]
	if got := names(pr); !slices.Equal(got, []string{"Willi Schneider", "Schneider", "Mediaș"}) {
		t.Errorf("names %v", got)
	}
	if !slices.Equal(pr.Gold, []int{0, 0, 1}) {
		t.Errorf("gold %v", pr.Gold)
	}
	r := pr.Records[1]
	if r.Type != "person" || r.Mentions != 2 || r.Context != "Schneider won ." || r.ID != "redocred_dev_0/e0/m1" {
		t.Errorf("record %+v", r)
	}
	if pr.Records[2].Type != "location" {
		t.Errorf("type %q", pr.Records[2].Type)
	}
}

func TestSampleEntities_WholeEntitiesFixedBySeed(t *testing.T) {
	p := Problem{ID: "x", NearMiss: [][2]int{{0, 1}, {2, 3}}}
	for g := range 10 {
		for k := range 1 + g%3 {
			p.Records = append(p.Records, Record{ID: string(rune('a'+g)) + string(rune('0'+k))})
			p.Gold = append(p.Gold, g)
		}
	}
	s := sampleEntities(p, 4, 7)
	if ents, _ := (Dataset{Problems: []Problem{s}}).goldStats(); ents != 4 {
		t.Fatalf("%d entities, want 4", ents)
	}
	size := map[int]int{}
	for _, g := range s.Gold {
		size[g]++
	}
	for g, n := range size {
		if n != 1+g%3 {
			t.Errorf("entity %d kept %d of %d records", g, n, 1+g%3)
		}
	}
	if !slices.IsSorted(s.Gold) {
		t.Errorf("order not kept: %v", s.Gold)
	}
	for _, nm := range s.NearMiss {
		if size[nm[0]] == 0 || size[nm[1]] == 0 {
			t.Errorf("near-miss pair %v kept without its entities", nm)
		}
	}
	if again := sampleEntities(p, 4, 7); !slices.Equal(again.Gold, s.Gold) {
		t.Error("same seed, different sample")
	}
	if all := sampleEntities(p, 0, 7); len(all.Records) != len(p.Records) {
		t.Error("n = 0 does not keep everything")
	}
}

func TestSampleProblems(t *testing.T) {
	ps := make([]Problem, 20)
	for i := range ps {
		ps[i].ID = string(rune('a' + i))
	}
	s := sampleProblems(ps, 5, 1)
	if len(s) != 5 || !slices.IsSortedFunc(s, func(a, b Problem) int { return int(a.ID[0]) - int(b.ID[0]) }) {
		t.Errorf("sample %v", s)
	}
	if s2 := sampleProblems(ps, 5, 1); !slices.EqualFunc(s, s2, func(a, b Problem) bool { return a.ID == b.ID }) {
		t.Error("same seed, different sample")
	}
}

// The shared data, when it is beside the repository: the counts of its
// README.
func TestLoaders_SharedData(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "benchmarks")
	if _, err := os.Stat(data); err != nil {
		t.Skipf("benchmark data not here: %v", err)
	}
	for _, c := range []struct {
		set                 string
		problems, entities  int
		minRecords, minGold int
	}{
		{"patstat", 1, 31, 71, 100},
		{"abt-buy", 1, 1076, 2000, 1000},
		{"dblp-acm", 1, 2686, 4900, 2200},
		{"redocred", 500, 9684, 10000, 800},
	} {
		d, err := loadSet(data, c.set, options{})
		if err != nil {
			t.Fatal(err)
		}
		ents, pairs := d.goldStats()
		if len(d.Problems) != c.problems || ents != c.entities || d.Records() < c.minRecords || pairs < c.minGold {
			t.Errorf("%s: %d problems, %d records, %d entities, %d gold pairs", c.set, len(d.Problems), d.Records(), ents, pairs)
		}
	}
}
