package ingest

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"kgforge/kg"
)

// TestChunkWithin_RejectsASourceOverItsBudget: a source with more chunks,
// more estimated tokens or a longer word than its limits is rejected alone,
// naming the source, the limit and the setting to raise; one within them is
// chunked exactly as Chunk does.
func TestChunkWithin_RejectsASourceOverItsBudget(t *testing.T) {
	prose := strings.Repeat("Velora Cycles buys aluminium frames from Kestrel Alloys. ", 60)
	cases := []struct {
		name string
		text string
		lim  Limits
		want string // "" means accepted
	}{
		{"within", prose, Limits{MaxChunks: 100, MaxTokens: 10_000, MaxWordBytes: 20}, ""},
		{"chunks", prose, Limits{MaxChunks: 3}, "more than limits.max_chunks 3 chunks: the first 3 end at byte "},
		{"tokens", prose, Limits{MaxTokens: 500}, "about 855 tokens (3420 bytes of text, 4 bytes a token), more than limits.max_tokens 500"},
		{"word", "# A\nsome words\n\nthen data:" + strings.Repeat("QUJD", 100) + " and more", Limits{MaxWordBytes: 100}, "405 bytes without white space at line 4, more than limits.max_word_bytes 100"},
		{"word at the end", "words " + strings.Repeat("é", 60), Limits{MaxWordBytes: 100}, "120 bytes without white space at line 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := readDoc(t, kg.KindMarkdown, tc.text)
			doc.Source.URI = "docs/big.md"
			opt := ChunkOptions{Size: 50, Overlap: 10}
			chunks, err := ChunkWithin(doc, opt, tc.lim)
			if tc.want == "" {
				if err != nil || len(chunks) != len(Chunk(doc, opt)) {
					t.Fatalf("got %d chunks, err %v; want those of Chunk", len(chunks), err)
				}
				return
			}
			if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "source docs/big.md: ") || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "in the pipeline file") {
				t.Errorf("err = %v\nwant a rejection of docs/big.md saying %q", err, tc.want)
			}
			if chunks != nil {
				t.Errorf("a rejected source gave %d chunks", len(chunks))
			}
		})
	}
}

// TestChunkWithin_DefaultsRejectHugeSources: with the default limits, 50 MB
// of prose (which Chunk cut into 66,114 chunks) and a 50 MB word (which
// held 3.5 GB in the tokenizer) are each refused before anything is
// tokenized.
func TestChunkWithin_DefaultsRejectHugeSources(t *testing.T) {
	for name, text := range map[string]string{
		"prose": strings.Repeat("Velora Cycles buys aluminium frames from Kestrel Alloys. ", 50<<20/57),
		"word":  strings.Repeat("x", 8<<10+1),
	} {
		doc := Document{Source: kg.Source{URI: "docs/" + name + ".txt"}, Text: text, Sections: []Section{{Span: kg.Span{End: len(text)}}}, Verbatim: true}
		_, err := ChunkWithin(doc, ChunkOptions{}, Limits{})
		if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "docs/"+name+".txt") {
			t.Errorf("%s: err = %v, want a rejection", name, err)
		}
	}
}

// TestCountTokens_SegmentsBoundTheTokenizer: the tokenizer is never given
// more than countSegment bytes at once, segments are cut before white space
// or between runes, and together they are the whole text.
func TestCountTokens_SegmentsBoundTheTokenizer(t *testing.T) {
	for name, text := range map[string]string{
		"word":  strings.Repeat("x", 3*countSegment+17),
		"runes": strings.Repeat("é", countSegment) + strings.Repeat("日本", countSegment/3),
		"prose": strings.Repeat("Velora Cycles buys frames.\n", 3*countSegment/27),
		"short": "a few words",
	} {
		var cuts []string
		for s := text; len(s) > 0; {
			n := segmentEnd(s, countSegment)
			if n <= 0 || n > countSegment {
				t.Fatalf("%s: segment of %d bytes", name, n)
			}
			cuts = append(cuts, s[:n])
			s = s[n:]
		}
		if strings.Join(cuts, "") != text {
			t.Fatalf("%s: segments do not make the text", name)
		}
		for i, c := range cuts[1:] {
			r, _ := utf8.DecodeRuneInString(c)
			if !utf8.ValidString(c) || !unicode.IsSpace(r) && len(cuts[i]) < countSegment-utf8.UTFMax {
				t.Errorf("%s: segment %d starts inside a word before the segment was full", name, i+1)
			}
		}
	}
	prose := strings.Repeat("Velora Cycles buys aluminium frames from Kestrel Alloys. ", 4000)
	exact, err := cl100k().Count(prose)
	if err != nil {
		t.Fatal(err)
	}
	if got := CountTokens(prose); got != exact {
		t.Errorf("prose cut before spaces: %d tokens, the tokenizer counts %d", got, exact)
	}
}

// BenchmarkCountTokens_GiantWord reports the heap a 16 MB word needs to be
// counted: the tokenizer's memory is bounded by a segment, not the word.
func BenchmarkCountTokens_GiantWord(b *testing.B) {
	word := strings.Repeat("abcdefghij", 16<<20/10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if CountTokens(word) == 0 {
			b.Fatal("no tokens")
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapSys-before.HeapSys)/(1<<20), "heap-growth-MiB")
	b.SetBytes(int64(len(word)))
}
