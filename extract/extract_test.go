package extract

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"kgforge/kg"
	"kgforge/llm"
)

func TestLocate(t *testing.T) {
	text := "Velora Cycles buys  aluminium frames\nfrom Kestrel Alloys. The Porto plant is busy."
	cases := []struct {
		name, quote, want string
		match             Match
	}{
		{"exact", "The Porto plant is busy.", "The Porto plant is busy.", MatchExact},
		{"case and spaces", "velora cycles buys aluminium frames from kestrel alloys.", "Velora Cycles buys  aluminium frames\nfrom Kestrel Alloys.", MatchNormalized},
		{"padded quote", "  Porto plant ", "Porto plant", MatchExact},
		{"absent", "Velora sells frames", "", MatchNone},
		{"empty", "  ", "", MatchNone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			span, m := Locate(text, tc.quote)
			if m != tc.match {
				t.Fatalf("match = %q, want %q", m, tc.match)
			}
			if got := text[span.Start:span.End]; m != MatchNone && got != tc.want {
				t.Errorf("span text = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzLocate(f *testing.F) {
	f.Add("Ärger  im\tBüro. ÄRGER im büro", "ärger im")
	f.Add("abc", "B")
	f.Fuzz(func(t *testing.T, text, quote string) {
		span, m := Locate(text, quote)
		if m == MatchNone {
			return
		}
		if span.Start < 0 || span.End > len(text) || span.Start > span.End {
			t.Fatalf("span %+v out of %d bytes", span, len(text))
		}
		got, _ := fold(text[span.Start:span.End])
		want, _ := fold(strings.TrimSpace(quote))
		if strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Fatalf("span text %q does not fold to quote %q", text[span.Start:span.End], quote)
		}
	})
}

func TestParseReply_RepairsOnlyATruncatedArray(t *testing.T) {
	full := `{"triplets":[{"subject":"A","subject_type":"x","predicate":"p","object":"B","object_type":"y","evidence":"A p B"},{"subject":"C","subject_type":"x","predicate":"q","object":"D"`
	r, err := ParseReply(full)
	if err != nil || len(r.Triplets) != 1 || r.Triplets[0].Subject != "A" {
		t.Fatalf("got %+v, %v", r, err)
	}
	for _, bad := range []string{"", "not json", `{"triplets":[{"subject":"A"`, `{"triplets":"x"}`} {
		if _, err := ParseReply(bad); err == nil {
			t.Errorf("ParseReply(%q): want error", bad)
		}
	}
}

func FuzzParseReply(f *testing.F) {
	f.Add(`{"triplets":[{"subject":"A","predicate":"p","object":"B","evidence":"e"}]}`)
	f.Add(`{"triplets":[{"subject":"A\"}]}","predicate":"p"},{"sub`)
	f.Fuzz(func(_ *testing.T, s string) { _, _ = ParseReply(s) })
}

// scripted answers Chat with canned replies, in order, and records requests.
type scripted struct {
	mu      sync.Mutex
	replies []string
	reqs    []llm.ChatRequest
}

func (s *scripted) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		return llm.ChatResponse{}, errors.New("no more replies")
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return llm.ChatResponse{Content: r}, nil
}

type mapCache struct {
	sync.Mutex
	m map[string][]byte
}

func (c *mapCache) Get(k string) ([]byte, bool) {
	c.Lock()
	defer c.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *mapCache) Put(k string, v []byte) error {
	c.Lock()
	defer c.Unlock()
	c.m[k] = v
	return nil
}

func TestExtractor_GroundsAndDropsByReason(t *testing.T) {
	chunk := kg.Chunk{
		ID: "c1", SourceID: "s", Span: kg.Span{Start: 100, End: 160},
		Text: "Velora Cycles buys aluminium frames from Kestrel Alloys. Porto is sunny.",
	}
	chunk.Span.End = chunk.Span.Start + len(chunk.Text)
	reply := `{"triplets":[
	 {"subject":"Velora Cycles","subject_type":"company","predicate":"Buys From","object":"Kestrel Alloys","object_type":"supplier","evidence":"velora cycles buys aluminium frames from kestrel alloys."},
	 {"subject":"Velora Cycles","subject_type":"company","predicate":"buys_from","object":"Kestrel Alloys","object_type":"supplier","evidence":"Velora Cycles buys aluminium frames from Kestrel Alloys."},
	 {"subject":"Velora","subject_type":"company","predicate":"located_in","object":"Lisbon","object_type":"city","evidence":"Velora is in Lisbon."},
	 {"subject":"Acme","subject_type":"company","predicate":"likes","object":"Porto","object_type":"city","evidence":"Porto is sunny."},
	 {"subject":"Porto","subject_type":"city","predicate":"is","object":"rainy","object_type":"x","evidence":"Porto is sunny."},
	 {"subject":"Porto","subject_type":"city","predicate":"is","object":"porto","object_type":"x","evidence":"Porto is sunny."},
	 {"subject":"","subject_type":"","predicate":"","object":"","object_type":"","evidence":""}]}`
	fake := &scripted{replies: []string{"{broken", reply}}
	cache := &mapCache{m: map[string][]byte{}}
	ex, err := New(fake, cache, Options{Model: "m", ModelDigest: "d"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ex.Process(context.Background(), chunk)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("kept %d triplets, want 1: %+v", len(got), got)
	}
	tr := got[0]
	if tr.Predicate != "buys_from" || tr.Subject.Type != "Company" || tr.Object.Type != "Supplier" {
		t.Errorf("normalised fields: %+v", tr)
	}
	local := func(s kg.Span) string { return chunk.Text[s.Start-chunk.Span.Start : s.End-chunk.Span.Start] }
	if local(tr.EvidenceSpan) != tr.Evidence || tr.Evidence != "Velora Cycles buys aluminium frames from Kestrel Alloys." {
		t.Errorf("evidence %q at span %q", tr.Evidence, local(tr.EvidenceSpan))
	}
	if local(tr.Subject.Span) != "Velora Cycles" || local(tr.Object.Span) != "Kestrel Alloys" {
		t.Errorf("mention spans %q %q", local(tr.Subject.Span), local(tr.Object.Span))
	}
	want := map[string]int{DropDuplicate: 1, DropEvidenceNotFound: 1, DropSubjectNotFound: 1, DropObjectNotFound: 1, DropIncomplete: 1, DropSelfLoop: 1}
	st := ex.Stats()
	for k, v := range want {
		if st.Dropped[k] != v {
			t.Errorf("dropped[%s] = %d, want %d (all: %v)", k, st.Dropped[k], v, st.Dropped)
		}
	}
	if len(fake.reqs) != 2 || fake.reqs[1].Temperature == 0 {
		t.Errorf("want a sampled retry after broken JSON, got %d calls", len(fake.reqs))
	}
	req := fake.reqs[0]
	if req.NumCtx == 0 || string(req.Schema) != string(SchemaFor(Sentences(chunk.Text))) || req.Temperature != 0 {
		t.Errorf("request options: %+v", req)
	}
	if len(req.Messages) != 3 || req.Messages[1].Role != "assistant" || !strings.Contains(req.Messages[2].Content, chunk.Text) {
		t.Errorf("want a worked example then the chunk, got %+v", req.Messages)
	}

	// A second run of the same chunk is served from the cache.
	again, err := ex.Process(context.Background(), chunk)
	if err != nil || len(again) != 1 || again[0].ID != tr.ID || len(fake.reqs) != 2 {
		t.Errorf("cached run: %d triplets, err %v, %d LLM calls", len(again), err, len(fake.reqs))
	}
}

func TestExtractor_RejectsChunkAfterAttempts(t *testing.T) {
	ex, err := New(&scripted{replies: []string{"nope", "still nope"}}, nil, Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ex.Process(context.Background(), kg.Chunk{ID: "c9", Text: "A sentence long enough."})
	if !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), "c9") {
		t.Errorf("err = %v, want rejection naming c9", err)
	}
	_, err = ex.Process(context.Background(), kg.Chunk{ID: "big", Text: strings.Repeat("word ", 20000)})
	if !errors.Is(err, ErrTooLong) {
		t.Errorf("oversized chunk: err = %v, want ErrTooLong", err)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"Buys From": "buys_from", " is-located in ": "is_located_in", "SUPPLIES": "supplies", "": ""} {
		if got := NormalizePredicate(in); got != want {
			t.Errorf("NormalizePredicate(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"quality incident": "QualityIncident", "company": "Company", "": "Thing", "`}) DETACH": "DETACH"} {
		if got := NormalizeType(in); got != want {
			t.Errorf("NormalizeType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSentences(t *testing.T) {
	got := Sentences("# Suppliers\nVelora buys frames. Kestrel Alloys Ltd. is in Sheffield!  Short.\n- a bullet item here\nVelora buys frames. v1.2 ok")
	want := []string{"Velora buys frames.", "Kestrel Alloys Ltd.", "is in Sheffield!", "- a bullet item here"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Sentences = %q", got)
	}
	if Sentences("# A long heading line") != nil {
		t.Error("a heading has no sentences")
	}
}

func TestSchemaFor_EvidenceFirstAndEnumerated(t *testing.T) {
	got := string(SchemaFor([]string{"A b c d e f.", `Quote "x".`}))
	if !strings.Contains(got, `"properties":{"evidence":{"enum":["A b c d e f.","Quote \"x\"."],"type":"string"},"subject":`) {
		t.Errorf("schema = %s", got)
	}
	if !strings.Contains(got, `"maxItems":6`) {
		t.Errorf("schema lacks maxItems: %s", got)
	}
}

func TestExtractor_SkipsChunksWithoutSentences(t *testing.T) {
	fake := &scripted{}
	ex, err := New(fake, nil, Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ex.Process(context.Background(), kg.Chunk{ID: "h", Text: "# The title of a section"})
	if err != nil || got != nil || len(fake.reqs) != 0 || ex.Stats().Skipped != 1 {
		t.Errorf("heading-only chunk: %v %v, %d calls, stats %+v", got, err, len(fake.reqs), ex.Stats())
	}
}
