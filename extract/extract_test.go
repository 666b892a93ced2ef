package extract

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"kgforge/kg"
	"kgforge/llm"
)

func TestLocate(t *testing.T) {
	text := "Velora Cycles buys  aluminium frames\nfrom Kestrel Alloys. The Porto plant is busy. Kestrel Alloys ships the frames from Sheffield every Monday."
	cases := []struct {
		name, quote, want string
		match             Match
		minSim            float64
	}{
		{"exact", "The Porto plant is busy.", "The Porto plant is busy.", MatchExact, 1},
		{"case and spaces", "velora cycles buys aluminium frames from kestrel alloys.", "Velora Cycles buys  aluminium frames\nfrom Kestrel Alloys.", MatchNormalized, 1},
		{"padded quote", "  Porto plant ", "Porto plant", MatchExact, 1},
		{"typo", "Kestrel Alloys ships the frames from Sheffeld every Monday.", "Kestrel Alloys ships the frames from Sheffield every Monday.", MatchFuzzy, 0.98},
		{"dropped word and comma", "Kestrel Alloys ships frames from Sheffield, every Monday", "Kestrel Alloys ships the frames from Sheffield every Monday.", MatchFuzzy, 0.9},
		{"mid-word start widened", "lloys ships the frames from Sheffeld every", "Alloys ships the frames from Sheffield every", MatchFuzzy, 0.9},
		{"across a line break", "Velora Cycles buys aluminium frame from Kestrel Alloys", "Velora Cycles buys  aluminium frames\nfrom Kestrel Alloys.", MatchFuzzy, 0.9},
		{"too different", "Kestrel Alloys ships wheels from Leeds every Friday.", "", MatchNone, 0},
		{"short quote is never fuzzy", "Porto plant is bsy.", "", MatchNone, 0},
		{"absent", "Velora sells frames", "", MatchNone, 0},
		{"empty", "  ", "", MatchNone, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			span, m, sim := Locate(text, tc.quote)
			if m != tc.match {
				t.Fatalf("match = %q (%q, %.3f), want %q", m, text[span.Start:span.End], sim, tc.match)
			}
			if got := text[span.Start:span.End]; m != MatchNone && got != tc.want {
				t.Errorf("span text = %q, want %q", got, tc.want)
			}
			if sim < tc.minSim || (m == MatchFuzzy && sim < FuzzyThreshold) || (m == MatchNone && sim != 0) {
				t.Errorf("similarity %.3f, want at least %.3f", sim, tc.minSim)
			}
		})
	}
}

func TestLocate_FuzzyCostIsBounded(t *testing.T) {
	long := strings.Repeat("word ", maxFuzzyBytes/5+1)
	if _, m, _ := Locate(strings.Repeat("other text ", 50)+long[:len(long)-3], long+"x"); m != MatchNone {
		t.Errorf("a quote over %d bytes matched fuzzily: %s", maxFuzzyBytes, m)
	}
}

func TestConfidenceOf(t *testing.T) {
	for _, tc := range []struct {
		m    Match
		sim  float64
		want float64
	}{{MatchExact, 1, 1}, {MatchNormalized, 1, 0.9}, {MatchFuzzy, 0.95, 0.855}, {MatchFuzzy, 1, 0.9}} {
		if got := confidenceOf(tc.m, tc.sim); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("confidenceOf(%s, %.2f) = %v, want %v", tc.m, tc.sim, got, tc.want)
		}
	}
}

func FuzzLocate(f *testing.F) {
	f.Add("Ärger  im\tBüro. ÄRGER im büro", "ärger im")
	f.Add("abc", "B")
	f.Add("Kestrel Alloys ships the frames from Sheffield every Monday.", "Kestrel Alloys ships frames from Sheffeld every Monday")
	f.Add(" aa bb cc dd ee ff gg hh ii jj kk ", "aa bb cc dd ee fx gg hh ii jj kk")
	f.Fuzz(func(t *testing.T, text, quote string) {
		span, m, sim := Locate(text, quote)
		if m == MatchNone {
			return
		}
		if span.Start < 0 || span.End > len(text) || span.Start > span.End {
			t.Fatalf("span %+v out of %d bytes", span, len(text))
		}
		got, _ := fold(text[span.Start:span.End])
		want, _ := fold(strings.TrimSpace(quote))
		got, want = strings.TrimSpace(got), strings.TrimSpace(want)
		if m != MatchFuzzy {
			if got != want || sim != 1 {
				t.Fatalf("span text %q does not fold to quote %q", text[span.Start:span.End], quote)
			}
			return
		}
		if !utf8.RuneStart(text[span.Start]) || (span.End < len(text) && !utf8.RuneStart(text[span.End])) {
			t.Fatalf("fuzzy span %+v splits a rune", span)
		}
		first, _ := utf8.DecodeRuneInString(text[span.Start:])
		last, _ := utf8.DecodeLastRuneInString(text[:span.End])
		before, _ := utf8.DecodeLastRuneInString(text[:span.Start])
		after, _ := utf8.DecodeRuneInString(text[span.End:])
		if span.Start == span.End || unicode.IsSpace(first) || unicode.IsSpace(last) ||
			(span.Start > 0 && !unicode.IsSpace(before)) || (span.End < len(text) && !unicode.IsSpace(after)) {
			t.Fatalf("fuzzy span %q of %q is not word-aligned", text[span.Start:span.End], text)
		}
		if s := similarity([]rune(want), []rune(got)); sim < FuzzyThreshold || math.Abs(s-sim) > 1e-9 {
			t.Fatalf("fuzzy span %q: similarity %.3f reported, %.3f measured, threshold %.2f", got, sim, s, FuzzyThreshold)
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
	 {"subject":"Mallory","subject_type":"company","predicate":"likes","object":"Porto","object_type":"city","evidence":"Porto is sunny."},
	 {"subject":"Porto","subject_type":"city","predicate":"is","object":"rainy","object_type":"x","evidence":"Porto is sunny."},
	 {"subject":"Porto","subject_type":"city","predicate":"is","object":"porto","object_type":"x","evidence":"Porto is sunny."},
	 {"subject":"","subject_type":"","predicate":"","object":"","object_type":"","evidence":""}]}`
	fake := &scripted{replies: []string{"{broken", reply}}
	cache := &mapCache{m: map[string][]byte{}}
	ex, err := New(fake, cache, Options{Model: "m", ModelDigest: "d"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Process(context.Background(), chunk)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Triplets
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
	if req.NumCtx == 0 || string(req.Schema) != string(SchemaFor(Sentences(chunk.Text), Schema{})) || req.Temperature != 0 || req.KeepAlive != 10*time.Minute {
		t.Errorf("request options: %+v", req)
	}
	if len(req.Messages) != 2+2*examplesShown || req.Messages[0].Role != "system" || req.Messages[2].Role != "assistant" || !strings.Contains(req.Messages[2*examplesShown+1].Content, chunk.Text) {
		t.Errorf("want instructions, the worked examples, then the chunk, got %+v", req.Messages)
	}
	if st.Calls != 2 || st.Kept != 1 || st.Chunks != 1 {
		t.Errorf("stats %+v", st)
	}

	// A second run of the same chunk is served from the cache.
	again, err := ex.Process(context.Background(), chunk)
	if err != nil || len(again.Triplets) != 1 || again.Triplets[0].ID != tr.ID || len(fake.reqs) != 2 {
		t.Errorf("cached run: %d triplets, err %v, %d LLM calls", len(again.Triplets), err, len(fake.reqs))
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
}

func TestExtractor_RejectsAChunkOverTheContextWindow(t *testing.T) {
	cases := []struct {
		name    string
		maxCtx  int
		words   int
		tooLong bool
	}{
		{"fits", 2048, 100, false},
		{"prompt and reply bound over the window", 2048, 600, true},
		{"far over", 8192, 20000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := &scripted{replies: []string{`{"triplets":[],"entities":[]}`}}
			ex, err := New(fake, nil, Options{Model: "m", MaxCtx: tc.maxCtx, NumPredict: 512})
			if err != nil {
				t.Fatal(err)
			}
			_, err = ex.Process(context.Background(), kg.Chunk{ID: "big", Text: strings.Repeat("Velora buys frames. ", tc.words)})
			if !tc.tooLong {
				if err != nil || len(fake.reqs) != 1 || fake.reqs[0].NumCtx > tc.maxCtx {
					t.Fatalf("err %v, %d calls %+v", err, len(fake.reqs), fake.reqs)
				}
				return
			}
			want := fmt.Sprintf("tokens of context, over llm.max_context %d", tc.maxCtx)
			if !errors.Is(err, ErrTooLong) || !errors.Is(err, kg.ErrRejected) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "chunk big") {
				t.Errorf("err = %v, want a rejection saying %q", err, want)
			}
			if len(fake.reqs) != 0 || ex.Stats().TooLong != 1 {
				t.Errorf("%d calls, stats %+v; want none and one chunk too long", len(fake.reqs), ex.Stats())
			}
		})
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
	got := string(SchemaFor([]string{"A b c d e f.", `Quote "x".`}, Schema{}))
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
	if err != nil || got.Triplets != nil || got.Entities != nil || len(fake.reqs) != 0 || ex.Stats().Skipped != 1 {
		t.Errorf("heading-only chunk: %v %v, %d calls, stats %+v", got, err, len(fake.reqs), ex.Stats())
	}
}
