package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"kgforge/bench/quality"
)

// TestHeldOut_MatchesTrainingSplit checks the bench keeps exactly what
// training/split.json holds out: the recipe (training/kgtrain/prepare.py)
// trains on the rest.
func TestHeldOut_MatchesTrainingSplit(t *testing.T) {
	split := filepath.Join("..", "..", "training", "split.json")
	var docs []quality.Item
	for i := range 12 {
		docs = append(docs, quality.Item{ID: fmt.Sprintf("redocred_dev_%d", i)})
	}
	got, err := heldOut(docs, "redocred", split)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range got {
		ids = append(ids, it.ID)
	}
	if want := "[redocred_dev_0 redocred_dev_5 redocred_dev_10]"; fmt.Sprint(ids) != want {
		t.Errorf("redocred held out %v, want %s", ids, want)
	}
	onts := []quality.Item{{ID: "a", Ontology: "ont_1_movie"}, {ID: "b", Ontology: "ont_2_music"}, {ID: "c", Ontology: "ont_9_nature"}}
	got, err = heldOut(onts, "text2kg", split)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "b" || got[1].ID != "c" {
		t.Errorf("text2kg held out %v, want items b and c", got)
	}
	if _, err := heldOut(onts[:1], "text2kg", split); err == nil {
		t.Error("a set with nothing held out: want an error")
	}
}
