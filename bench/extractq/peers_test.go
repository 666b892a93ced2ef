package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/bench/quality"
)

// A driver line as peers/common.py writes it.
const lightragLine = `{"id": "s1", "system": "lightrag", "version": "1.5.7", "model": "gemma3:270m",
 "entities": [{"name": "CHRISTOPHER NOLAN", "type": "person"}, {"name": "Inception", "type": "work"}, {"name": "Lyon", "type": "location"}],
 "relations": [{"subject": "Christopher Nolan", "predicate": "filmmaking, director", "object": "Inception", "description": "Nolan directed it."},
               {"subject": "Inception", "predicate": "based in", "object": "Lyon", "description": ""}],
 "llm_calls": 2, "prompt_tokens": 4273, "completion_tokens": 519, "llm_seconds": 54.4, "cut_at_bound": 1,
 "embed_calls": 1, "embed_tokens": 12, "errors": 0, "seconds": 54.9, "cached": false, "error": ""}`

func TestReadPeerItemsNamesTheBadLine(t *testing.T) {
	got, err := readPeerItems(strings.NewReader(strings.ReplaceAll(lightragLine, "\n", "")+"\n\n"), "lightrag.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := got["s1"]
	if p.Calls != 2 || p.PromptTokens != 4273 || p.CompletionTokens != 519 || p.CutAtBound != 1 || len(p.Entities) != 3 || len(p.Relations) != 2 {
		t.Fatalf("parsed %+v", p)
	}
	for _, bad := range []string{`{"id": "a"}` + "\nnot json\n", `{"entities": []}` + "\n"} {
		_, err := readPeerItems(strings.NewReader(bad), "x.jsonl")
		if err == nil || !strings.Contains(err.Error(), "x.jsonl line") {
			t.Errorf("%q: error %v, want one naming the line", bad, err)
		}
	}
}

func TestScorePeerMatchesPredicateCandidatesEndpointsAndEntities(t *testing.T) {
	items := []quality.Item{
		{ID: "s1", Text: "Inception is a 2010 film directed by Christopher Nolan.", Gold: []quality.Triple{{Subject: "Inception", Relation: "director", Object: "Christopher Nolan"}}},
		{ID: "s2", Text: "Paris is the capital of France.", Gold: []quality.Triple{{Subject: "France", Relation: "capital", Object: "Paris"}}},
	}
	got, err := readPeerItems(strings.NewReader(strings.ReplaceAll(lightragLine, "\n", "")), "lightrag.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// s2 has no line: it predicted nothing and is named as failed.
	s := scorePeer("lightrag", items, got, true, 1)
	// The first relation states the gold one reversed, with "director" one
	// of its keywords: right when undirected. The second is wrong.
	if r := s.Relations; r.TP != 1 || r.FP != 1 || r.FN != 1 {
		t.Errorf("relations %d/%d/%d, want TP 1 FP 1 FN 1", r.TP, r.FP, r.FN)
	}
	if p := s.Pairs; p.TP != 1 || p.FP != 1 || p.FN != 1 {
		t.Errorf("pairs %d/%d/%d, want TP 1 FP 1 FN 1", p.TP, p.FP, p.FN)
	}
	// Entities: Christopher Nolan (any case) and Inception are gold; Lyon
	// is not; France and Paris were not found.
	if e := s.Entities; e.TP != 2 || e.FP != 1 || e.FN != 2 {
		t.Errorf("entities %d/%d/%d, want TP 2 FP 1 FN 2", e.TP, e.FP, e.FN)
	}
	if s.Grounded != [2]int{1, 2} {
		t.Errorf("endpoints in text %v, want 1 of 2 (Lyon is not in the sentence)", s.Grounded)
	}
	if s.Calls != 2 || len(s.Failed) != 1 || !strings.HasPrefix(s.Failed[0], "s2: ") {
		t.Errorf("calls %d failed %v", s.Calls, s.Failed)
	}
	// Directed (kgforge's triplets), the reversed relation is wrong.
	if d := scorePeer("kgforge", items, got, false, 1); d.Relations.TP != 0 || d.Pairs.TP != 0 {
		t.Errorf("directed: relations TP %d pairs TP %d, want 0", d.Relations.TP, d.Pairs.TP)
	}
}

func TestMatchEntitiesCountsEachGoldEntityOnce(t *testing.T) {
	// A Re-DocRED item: entities are clusters of mentions.
	it := quality.Item{Aliases: map[string][]string{
		"united states": {"u s", "united states"}, "u s": {"u s", "united states"},
		"obama": {"obama"},
	}}
	c := matchEntities(it, []string{"United States", "U.S.", "united states", "Kenya"})
	// United States is right once; U.S. names it again (neither); the
	// repeat counts once; Kenya is wrong; Obama is missed.
	if c != (quality.Counts{TP: 1, FP: 1, FN: 1}) {
		t.Errorf("got %+v, want TP 1 FP 1 FN 1", c)
	}
}

func TestInTextMatchesWholeWords(t *testing.T) {
	text := "Marta Sousa leads Velora Cycles."
	for name, want := range map[string]bool{"marta sousa": true, "Velora": true, "Vel": false, "": false, "Porto": false} {
		if got := inText(text, name); got != want {
			t.Errorf("inText(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestTiktokenFilesAreTheOnesTiktokenExpects(t *testing.T) {
	dir := t.TempDir()
	if err := writeTiktokenFiles(dir); err != nil {
		t.Fatal(err) // the rendered vocabulary differs from tiktoken's download
	}
	// tiktoken names its cached download by the SHA-1 of the address.
	for _, name := range []string{"fb374d419588a4632f3f557e76b4b70aebbca790", "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}
