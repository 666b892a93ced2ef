package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kgforge/bench/internal/sqlqa"
)

// TestSynth_DeterministicForASeed: a seed makes the same databases and
// questions every time, another seed others, and database i is the same
// whatever the number asked.
func TestSynth_DeterministicForASeed(t *testing.T) {
	a := synthDatabases(7, 20)
	if !reflect.DeepEqual(dump(synthDatabases(7, 20)), dump(a)) {
		t.Fatal("two runs with seed 7 differ")
	}
	if !reflect.DeepEqual(dump(synthDatabases(7, 3)), dump(a[:3])) {
		t.Error("the first 3 databases of seed 7 differ from the first 3 of 20")
	}
	if reflect.DeepEqual(dump(synthDatabases(8, 20)), dump(a)) {
		t.Error("seeds 7 and 8 make the same databases")
	}
	keys := map[string]bool{}
	for _, db := range a {
		keys[db.name[strings.LastIndex(db.name, "_")+1:]] = true
		if n := len(db.tables); n < 1 || n > 4 {
			t.Errorf("%s: %d tables", db.name, n)
		}
		if len(db.examples) == 0 {
			t.Errorf("%s: no questions", db.name)
		}
	}
	if len(domains) < 12 || len(keys) < 12 {
		t.Errorf("%d domains, %d of them in 20 databases; want at least 12", len(domains), len(keys))
	}
}

// dump is what the databases write: their names, files, tables and
// questions.
func dump(dbs []*synthDB) []any {
	var out []any
	for _, db := range dbs {
		out = append(out, db.name, db.file, db.sqlite(), db.examples)
	}
	return out
}

// TestSynth_NamesAvoidTheExample: no capitalised word of the synthetic
// databases' values (their names, places, categories) is one of those written in
// examples/bikeco, the example corpus the agent is shown elsewhere.
func TestSynth_NamesAvoidTheExample(t *testing.T) {
	banned := map[string]bool{}
	word := regexp.MustCompile(`\b[A-Z][A-Za-z]+\b`)
	err := filepath.WalkDir("../../examples/bikeco", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || slices.Contains([]string{".pdf", ".xlsx", ".docx"}, filepath.Ext(path)) {
			return err
		}
		raw, err := os.ReadFile(path)
		for _, w := range word.FindAllString(string(raw), -1) {
			banned[w] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !banned["Velora"] || !banned["Kestrel"] {
		t.Fatal("examples/bikeco's names not read")
	}
	check := func(where, s string) {
		for _, w := range word.FindAllString(s, -1) {
			if banned[w] {
				t.Errorf("%s: %q is a name of examples/bikeco", where, w)
			}
		}
	}
	for _, db := range synthDatabases(synthDefaultSeed, 2*len(domains)) {
		for _, tb := range db.tables {
			for _, c := range tb.cols {
				for _, v := range c.vals {
					if s, ok := v.(string); ok {
						check(db.name+" "+tb.name+"."+c.name, s)
					}
				}
			}
		}
	}
	// Every pool, whole, not only what the databases drew.
	for _, d := range domains {
		for _, ts := range d.tables {
			for _, c := range ts.cols {
				if c.pool != nil {
					for _, v := range c.pool(rand.New(rand.NewPCG(1, 2)), 200) {
						check(d.key, v)
					}
				}
			}
		}
	}
}

// TestRun_Synthetic: a small synthetic run writes pairs, each question a
// select and then an answer, and the held-out databases go to eval.jsonl
// only.
func TestRun_Synthetic(t *testing.T) {
	t.Setenv("KGFORGE_CACHE_DIR", t.TempDir())
	out := t.TempDir()
	o := options{work: t.TempDir(), out: out, split: "../../training/agent_split.json", model: "kgforge-agent", sets: synthSetName, action: true, synthDBs: 3, synthSeed: synthDefaultSeed}
	var summary strings.Builder
	if err := run(context.Background(), o, &summary); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + summary.String())
	sp, err := readSplit(o.split)
	if err != nil {
		t.Fatal(err)
	}
	set, err := synthSet(o.synthSeed, o.synthDBs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sp.holdOutSynthetic(set)
	held := sp.HeldOut[synthSetName]
	if len(held) == 0 || len(held) == len(databases(set)) {
		t.Fatalf("held out %v of %v", held, databases(set))
	}
	written, err := readSplitLists(filepath.Join(out, heldOutFile))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(written[synthSetName], slices.Sorted(slices.Values(held))) || len(written) != 1 {
		t.Errorf("%s holds out %v, the run %v", heldOutFile, written, held)
	}
	for _, split := range []string{splitTrain, splitEval} {
		pairs := readPairs(t, filepath.Join(out, split+".jsonl"))
		if len(pairs) == 0 {
			t.Fatalf("%s.jsonl: no pairs:\n%s", split, summary.String())
		}
		for _, p := range pairs {
			if p.Set != synthSetName || slices.Contains(held, p.DB) != (split == splitEval) {
				t.Errorf("%s.jsonl holds %s of %s %s (held out: %v)", split, p.QuestionID, p.Set, p.DB, held)
			}
			want := `{"tool":"select","args":{"table":`
			if p.Turn == 2 {
				want = `{"tool":"answer","args":{"answer":`
			}
			if p.Turn > 2 || !strings.HasPrefix(p.Completion, want) {
				t.Errorf("%s turn %d: %s, want a completion that starts %s", p.QuestionID, p.Turn, p.Completion, want)
			}
		}
	}
}

// readSplitLists reads the held-out lists of a file such as heldOutFile.
func readSplitLists(path string) (map[string][]string, error) {
	var f struct {
		HeldOut map[string][]string `json:"heldout"`
	}
	err := sqlqa.ReadJSON(path, &f)
	return f.HeldOut, err
}

// TestSynth_TheSplitFileListsTheDefaultSet: training/agent_split.json's
// synthetic databases are those the rule holds out of the default set,
// and a smaller set holds out whichever of them it makes.
func TestSynth_TheSplitFileListsTheDefaultSet(t *testing.T) {
	sp, err := readSplit("../../training/agent_split.json")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, db := range synthDatabases(synthDefaultSeed, synthDefaultDBs) {
		names = append(names, db.name)
	}
	file := slices.Clone(sp.HeldOut[synthSetName])
	if want := heldOutByRule(sp.Seed, sp.Share, names); !slices.Equal(file, want) {
		t.Errorf("the file holds out %v, the rule %v", file, want)
	}
	set := &sqlqa.Set{Name: synthSetName}
	for _, n := range names[:20] {
		set.Examples = append(set.Examples, sqlqa.Example{DB: n})
	}
	sp.holdOutSynthetic(set)
	for _, n := range names[:20] {
		if slices.Contains(file, n) && sp.of(synthSetName, n) != splitEval {
			t.Errorf("%s: held out by the file, but not by a run of 20 databases", n)
		}
	}
}
