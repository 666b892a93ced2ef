package onnxembed

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestTokenizerMatchesHuggingFaceOnEveryGoldenText compares Encode with the
// ids Hugging Face tokenizers gives (bench/embed/golden.py): 1,500 names of
// the entity-resolution sets and edge cases (accents, CJK, control and
// zero-width characters, punctuation, a word over 100 characters, a text
// over 256 tokens).
func TestTokenizerMatchesHuggingFaceOnEveryGoldenText(t *testing.T) {
	tok, err := LoadTokenizer("testdata/tokenizer.json", 256)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n, bad := 0, 0
	for sc.Scan() {
		var g struct {
			Text string  `json:"text"`
			IDs  []int64 `json:"ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		if got := tok.Encode(g.Text); !slices.Equal(got, g.IDs) {
			bad++
			if bad <= 10 {
				t.Errorf("Encode(%q)\n got %v\nwant %v", g.Text, got, g.IDs)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1500 {
		t.Fatalf("golden file has %d texts, want at least 1500", n)
	}
	if bad > 0 {
		t.Errorf("%d of %d texts tokenized differently", bad, n)
	}
}

func TestLoadTokenizerRejectsAnotherPipeline(t *testing.T) {
	p := t.TempDir() + "/tokenizer.json"
	if err := os.WriteFile(p, []byte(`{"normalizer":{"type":"NFC"},"pre_tokenizer":{"type":"Metaspace"},"model":{"type":"Unigram"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTokenizer(p, 256); err == nil {
		t.Fatal("LoadTokenizer accepted a Unigram tokenizer")
	}
}
