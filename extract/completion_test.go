package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"kgforge/kg"
	"kgforge/llm"
)

// scriptedGen answers Chat and Generate with canned replies, in order, and
// records the requests: a test double that injects what a model would say,
// including replies cut at the output bound.
type scriptedGen struct {
	mu      sync.Mutex
	replies []llm.ChatResponse
	chats   []llm.ChatRequest
	gens    []llm.GenerateRequest
}

func (s *scriptedGen) next() (llm.ChatResponse, error) {
	if len(s.replies) == 0 {
		return llm.ChatResponse{}, errors.New("no more replies")
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, nil
}

func (s *scriptedGen) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats = append(s.chats, req)
	return s.next()
}

func (s *scriptedGen) Generate(_ context.Context, req llm.GenerateRequest) (llm.ChatResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gens = append(s.gens, req)
	return s.next()
}

func stop(content string) llm.ChatResponse {
	return llm.ChatResponse{Content: content, DoneReason: "stop"}
}

func TestModeFor_BaseModelsGetCompletionOthersChat(t *testing.T) {
	cases := []struct {
		info llm.ModelInfo
		want Mode
	}{
		{llm.ModelInfo{Name: "gemma3:270m", HasTemplate: false, Capabilities: []string{"completion"}}, ModeCompletion},
		{llm.ModelInfo{Name: "qwen3:8b", HasTemplate: true, Capabilities: []string{"completion", "tools", "thinking"}}, ModeChat},
	}
	for _, c := range cases {
		if got := ModeFor(c.info); got != c.want {
			t.Errorf("ModeFor(%+v) = %s, want %s", c.info, got, c.want)
		}
	}
}

func TestNew_RejectsAnUnresolvedOrUnknownModeAndGleaningInCompletion(t *testing.T) {
	for _, opts := range []Options{
		{Model: "m", Mode: ModeAuto},
		{Model: "m", Mode: "instruct"},
		{Model: "m", Mode: ModeCompletion, Gleanings: 1},
		{Model: "m", Mode: ModeCompletion, Format: "yaml"},
	} {
		if _, err := New(&scriptedGen{}, nil, opts); err == nil {
			t.Errorf("New(%+v): want an error", opts)
		}
	}
}

// TestParseLines_MalformedLinesAreCountedNotGuessed: only a line of five
// non-empty fields is a fact; anything else is counted, and a last line
// cut by the output bound is neither kept nor counted as malformed.
func TestParseLines_MalformedLinesAreCountedNotGuessed(t *testing.T) {
	sentences := Sentences(velora)
	reply := strings.Join([]string{
		"Kestrel Alloys | Company | based_in | Sheffield | City",
		"",
		"Velora Cycles | Company | makes | city bikes",                   // four fields
		"Velora Cycles | Company | makes | city bikes | Product | Porto", // six
		"Velora Cycles |  | makes | city bikes | Product",                // an empty field
		"Velora Cycles buys frames from Kestrel Alloys.",                 // prose
		" Velora Cycles | Company | buys_from | Kestrel Alloys | Company ",
		"END",
		"Mallory | Person | owns | Porto | City", // after END: not read
	}, "\n")
	r, malformed := parseLines(reply, sentences, false, nil)
	if malformed != 4 {
		t.Errorf("malformed = %d, want 4", malformed)
	}
	want := []RawTriplet{
		{Subject: "Kestrel Alloys", SubjectType: "Company", Predicate: "based_in", Object: "Sheffield", ObjectType: "City", Evidence: sentences[1]},
		{Subject: "Velora Cycles", SubjectType: "Company", Predicate: "buys_from", Object: "Kestrel Alloys", ObjectType: "Company", Evidence: sentences[0]},
	}
	if !slices.Equal(r.Triplets, want) {
		t.Errorf("triplets %+v\nwant %+v", r.Triplets, want)
	}
	names := []string{}
	for _, e := range r.Entities {
		names = append(names, e.Name+"/"+e.Type)
	}
	if got := strings.Join(names, ","); got != "Kestrel Alloys/Company,Sheffield/City,Velora Cycles/Company" {
		t.Errorf("entities %s", got)
	}

	cutReply := "Kestrel Alloys | Company | based_in | Sheffield | City\nVelora Cycles | Company | ma"
	r, malformed = parseLines(cutReply, sentences, true, nil)
	if len(r.Triplets) != 1 || malformed != 0 {
		t.Errorf("cut reply: %d triplets, %d malformed; want the whole line only, nothing malformed", len(r.Triplets), malformed)
	}
	r, malformed = parseLines(cutReply, sentences, false, nil)
	if len(r.Triplets) != 1 || malformed != 1 {
		t.Errorf("whole reply with a bad last line: %d triplets, %d malformed; want 1 and 1", len(r.Triplets), malformed)
	}
}

// TestExtractor_CompletionPromptRotatesExamplesPerChunk: the prompt of a
// chunk is the header, two worked examples chosen by the chunk id's hash
// (the same for the same id; every example shown for some chunk), then
// the chunk, left open for the model's facts.
func TestExtractor_CompletionPromptRotatesExamplesPerChunk(t *testing.T) {
	ex, err := New(&scriptedGen{}, nil, Options{Model: "m", Mode: ModeCompletion, Format: FormatLines})
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for i := range 40 {
		c := kg.Chunk{ID: fmt.Sprintf("chunk-%d", i), Text: velora}
		p, err := ex.completionPrompt(c)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := ex.completionPrompt(c)
		if p != again {
			t.Fatalf("chunk %s: two prompts differ", c.ID)
		}
		exs := ex.examplesFor(c.ID)
		if len(exs) != examplesShown || exs[0].name == exs[1].name {
			t.Fatalf("chunk %s: examples %v", c.ID, exs)
		}
		for _, x := range exs {
			shown[x.name] = true
			if !strings.Contains(p, "Passage: "+x.passage+"\nFacts:\n"+x.lines+"\nEND\n") {
				t.Errorf("chunk %s: prompt lacks example %s in the line format:\n%s", c.ID, x.name, p)
			}
		}
		if !strings.HasSuffix(p, "\nPassage: "+velora+"\nFacts:\n") {
			t.Errorf("chunk %s: prompt does not end with the open chunk:\n%s", c.ID, p)
		}
	}
	if len(shown) != len(ex.examples) {
		t.Errorf("40 chunks showed %d of %d examples", len(shown), len(ex.examples))
	}
}

// TestExtractor_CompletionPromptPinned pins the completion prompt of one
// chunk, in both formats, with a schema.
func TestExtractor_CompletionPromptPinned(t *testing.T) {
	schema := Schema{
		EntityTypes:   []EntityType{{Name: "Company"}, {Name: "City"}},
		RelationTypes: []RelationType{{Name: "located_in", Domain: "Company", Range: "City"}, {Name: "supplies"}},
	}
	for _, f := range []Format{FormatLines, FormatJSON} {
		ex, err := New(&scriptedGen{}, nil, Options{Model: "m", Mode: ModeCompletion, Format: f, Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ex.completionPrompt(veloraChunk())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "completion-"+string(f)+".golden")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./extract -run CompletionPromptPinned -update)", err)
		}
		if got != string(want) {
			t.Errorf("prompt differs from %s (rerun with -update if intended):\n%s", path, got)
		}
	}
}

// TestExtractor_CompletionModeSendsRawGenerate: the completion mode calls
// Generate with raw set, no chat, thinking off unless asked, the line
// format's stop sequences or the JSON format's schema, and a bound sized
// to the passage; its facts are grounded like the chat mode's, and its
// malformed lines are a drop reason.
func TestExtractor_CompletionModeSendsRawGenerate(t *testing.T) {
	lines := "Kestrel Alloys | Company | based_in | Sheffield | City\nKestrel Alloys based in Sheffield\n"
	fake := &scriptedGen{replies: []llm.ChatResponse{stop(lines)}}
	ex, err := New(fake, nil, Options{Model: "m", Mode: ModeCompletion, Format: FormatLines, Think: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Process(context.Background(), veloraChunk())
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.chats) != 0 || len(fake.gens) != 1 {
		t.Fatalf("%d chats, %d generates; want one generate", len(fake.chats), len(fake.gens))
	}
	req := fake.gens[0]
	if !req.Raw || !req.Think || req.Schema != nil || !slices.Equal(req.Stop, linesStop) || req.Temperature != 0 ||
		req.NumPredict != replyBound(FormatLines, Sentences(velora), 512) || req.NumCtx == 0 || !req.StopAtRepeatedLine {
		t.Errorf("request %+v", req)
	}
	if len(res.Triplets) != 1 || res.Triplets[0].Predicate != "based_in" || res.Triplets[0].Evidence != "Kestrel Alloys is based in Sheffield." {
		t.Errorf("kept %+v", res.Triplets)
	}
	if st := ex.Stats(); st.Dropped[DropMalformedLine] != 1 || st.Calls != 1 {
		t.Errorf("stats %+v, want one malformed line and one call", st)
	}

	js := `{"triplets":[{"evidence":"Kestrel Alloys is based in Sheffield.","subject":"Kestrel Alloys","subject_type":"company","predicate":"based_in","object":"Sheffield","object_type":"city"}],"entities":[]}`
	fake = &scriptedGen{replies: []llm.ChatResponse{stop(js)}}
	ex, err = New(fake, nil, Options{Model: "m", Mode: ModeCompletion, Format: FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	if res, err = ex.Process(context.Background(), veloraChunk()); err != nil || len(res.Triplets) != 1 {
		t.Fatalf("json: %v, %+v", err, res.Triplets)
	}
	if fake.gens[0].StopAtRepeatedLine {
		t.Error("the JSON format asked to stop at a repeated line; its grammar holds the reply")
	}
	req = fake.gens[0]
	if !req.Raw || req.Think || string(req.Schema) != string(SchemaFor(Sentences(velora), Schema{})) || req.Stop != nil {
		t.Errorf("json request %+v", req)
	}
}

// TestExtractor_ModesNeverShareCachedReplies: the chat mode's cached reply
// for a chunk does not serve the completion mode (or the other format),
// and the prompt versions say which mode made a reply.
func TestExtractor_ModesNeverShareCachedReplies(t *testing.T) {
	cache := &mapCache{m: map[string][]byte{}}
	js := `{"triplets":[],"entities":[]}`
	versions := map[string]bool{}
	for _, o := range []Options{
		{Model: "m", Mode: ModeChat},
		{Model: "m", Mode: ModeCompletion, Format: FormatJSON},
		{Model: "m", Mode: ModeCompletion, Format: FormatLines},
		{Model: "m", Mode: ModeChat, Think: true},
	} {
		fake := &scriptedGen{replies: []llm.ChatResponse{stop(js)}}
		ex, err := New(fake, cache, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ex.Process(context.Background(), veloraChunk()); err != nil {
			t.Fatal(err)
		}
		if st := ex.Stats(); st.CacheHits != 0 || st.Calls != 1 {
			t.Errorf("%+v: %d cache hits, %d calls; want a call of its own", o, st.CacheHits, st.Calls)
		}
		versions[ex.PromptVersion()] = true
		if !strings.HasPrefix(ex.PromptVersion(), string(o.Mode)) {
			t.Errorf("%+v: version %s does not name the mode", o, ex.PromptVersion())
		}
	}
	if len(versions) != 3 { // thinking is in the key, not the prompt
		t.Errorf("versions %v, want one per mode and format", versions)
	}
}

// TestExtractor_CountsCutRepliesByReason: replies that hit the output bound
// (done_reason "length") or that the server ended short (incomplete) are
// counted by reason, in both modes; a cut JSON reply keeps its whole items.
func TestExtractor_CountsCutRepliesByReason(t *testing.T) {
	cutJSON := `{"triplets":[{"evidence":"Kestrel Alloys is based in Sheffield.","subject":"Kestrel Alloys","subject_type":"company","predicate":"based_in","object":"Sheffield","object_type":"city"},{"evidence":"Kestrel`
	fake := &scriptedGen{replies: []llm.ChatResponse{
		{Content: cutJSON, DoneReason: "length"},
		{Content: cutJSON, DoneReason: llm.DoneIncomplete},
		stop(`{"triplets":[],"entities":[]}`),
	}}
	ex, err := New(fake, nil, Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{velora, velora + " More.", velora + " Again."} {
		c := kg.Chunk{ID: fmt.Sprint("c", i), Text: text}
		if _, err := ex.Process(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	st := ex.Stats()
	if st.Cut["length"] != 1 || st.Cut[llm.DoneIncomplete] != 1 || len(st.Cut) != 2 || st.Kept != 2 {
		t.Errorf("cut %v, kept %d; want one of each reason and the whole triplet of each cut reply", st.Cut, st.Kept)
	}

	fake = &scriptedGen{replies: []llm.ChatResponse{{Content: "Kestrel Alloys | Company | based_in | Sheffield | City\nKestrel Al", DoneReason: "length"}}}
	ex, err = New(fake, nil, Options{Model: "m", Mode: ModeCompletion, Format: FormatLines})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Process(context.Background(), veloraChunk()); err != nil {
		t.Fatal(err)
	}
	if st := ex.Stats(); st.Cut["length"] != 1 || st.Kept != 1 || st.Dropped[DropMalformedLine] != 0 {
		t.Errorf("completion: stats %+v; want one cut reply, its whole line kept, nothing malformed", st)
	}

	// A reply ended at a repeated line holds whole lines only: its last
	// line is kept, and it is counted as "repeat".
	fake = &scriptedGen{replies: []llm.ChatResponse{{Content: "Kestrel Alloys | Company | based_in | Sheffield | City\n", DoneReason: llm.DoneRepeat}}}
	ex, err = New(fake, nil, Options{Model: "m", Mode: ModeCompletion, Format: FormatLines})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ex.Process(context.Background(), veloraChunk()); err != nil {
		t.Fatal(err)
	}
	if st := ex.Stats(); st.Cut[llm.DoneRepeat] != 1 || st.Kept != 1 || len(st.Cut) != 1 {
		t.Errorf("repeat: stats %+v; want one reply counted as repeat and its line kept", st)
	}
}

// TestReplyBound_SizedFromThePassageWithinFloorAndCap: the bound on reply
// tokens grows with the passage's sentences and their length, never below
// a floor nor above the pipeline's llm.max_output, and the line format
// needs less than the JSON forms.
func TestReplyBound_SizedFromThePassageWithinFloorAndCap(t *testing.T) {
	one := []string{"Kestrel Alloys is based in Sheffield."}
	two := Sentences(velora)[:2]
	long := []string{strings.Repeat("word ", 60) + "end."}
	many := slices.Repeat(one, 10)
	for _, f := range []Format{FormatJSON, FormatLines} {
		b1, b2, bl, bm := replyBound(f, one, 4096), replyBound(f, two, 4096), replyBound(f, long, 4096), replyBound(f, many, 4096)
		if b1 >= b2 || bm < b2 {
			t.Errorf("%s: bounds %d (1 sentence), %d (2), %d (10): want growth with sentences", f, b1, b2, bm)
		}
		if f == FormatJSON && bl <= b1 {
			t.Errorf("json: a long sentence's bound %d is not above a short one's %d (its evidence is repeated)", bl, b1)
		}
		if replyBound(f, many, 4096) != replyBound(f, slices.Repeat(one, 20), 4096) {
			t.Errorf("%s: the bound grows past the schema's maxTriplets", f)
		}
		if got := replyBound(f, many, 100); got != 100 {
			t.Errorf("%s: bound %d, want the cap 100", f, got)
		}
		if got := replyBound(f, nil, 4096); got < minReplyLines {
			t.Errorf("%s: bound %d under the floor", f, got)
		}
	}
	if replyBound(FormatLines, two, 4096) >= replyBound(FormatJSON, two, 4096) {
		t.Error("the line format's bound is not below the JSON one's")
	}
}

// TestExamples_AreWholeFactsFromOtherDomains: every worked example states
// facts whose names are in its passage, found in one sentence, that pass
// the rules for a real fact; and no name of an example occurs in the
// example corpus (examples/bikeco), so the leak rule can tell a copy.
func TestExamples_AreWholeFactsFromOtherDomains(t *testing.T) {
	exs, _, err := loadExamples()
	if err != nil {
		t.Fatal(err)
	}
	var corpus strings.Builder
	files, _ := filepath.Glob("../examples/bikeco/docs/*")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		corpus.Write(b)
	}
	if corpus.Len() == 0 {
		t.Fatal("example corpus not found")
	}
	ex, err := New(&scriptedGen{}, nil, Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range exs {
		if len(x.reply.Triplets) < 2 {
			t.Errorf("%s: %d facts, want at least two", x.name, len(x.reply.Triplets))
		}
		c := kg.Chunk{ID: "x", Text: x.passage, Span: kg.Span{End: len(x.passage)}}
		for _, raw := range x.reply.Triplets {
			if _, reason := ex.groundTriplet(c, raw); reason != "" && reason != DropFromExamples {
				t.Errorf("%s: fact %+v dropped: %s", x.name, raw, reason)
			}
			for _, name := range []string{raw.Subject, raw.Object} {
				if strings.Contains(strings.ToLower(corpus.String()), strings.ToLower(name)) {
					t.Errorf("%s: name %q occurs in the example corpus", x.name, name)
				}
			}
		}
		var r Reply
		if err := json.Unmarshal([]byte(replyJSON(x.reply)), &r); err != nil || len(r.Triplets) != len(x.reply.Triplets) {
			t.Errorf("%s: JSON form %s: %v", x.name, replyJSON(x.reply), err)
		}
	}
}

// TestExtractor_ChunksOfMixedSizesShareOneContextWindow: Ollama restarts
// the runner whenever num_ctx changes, so chunks from a short sentence to
// a full chunk of 200 words are all sent with the same window, and only a
// chunk too big for it gets a larger one.
func TestExtractor_ChunksOfMixedSizesShareOneContextWindow(t *testing.T) {
	lines := "Kestrel Alloys | Company | based_in | Sheffield | City\n"
	var replies []llm.ChatResponse
	for range 4 {
		replies = append(replies, stop(lines))
	}
	fake := &scriptedGen{replies: replies}
	ex, err := New(fake, nil, Options{Model: "m", Mode: ModeCompletion, Format: FormatLines})
	if err != nil {
		t.Fatal(err)
	}
	sentence := "Kestrel Alloys is based in Sheffield. "
	for i, words := range []int{1, 20, 40} { // 7 to 280 words
		c := veloraChunk()
		c.ID, c.Text = fmt.Sprintf("c%d", i), strings.Repeat(sentence, words)
		if _, err := ex.Process(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	for i, g := range fake.gens {
		if g.NumCtx != 2048 {
			t.Errorf("chunk %d: num_ctx %d, want 2048 for every chunk of a usual size", i, g.NumCtx)
		}
	}
	big := veloraChunk()
	big.ID, big.Text = "big", strings.Repeat(sentence, 400)
	if _, err := ex.Process(context.Background(), big); err != nil {
		t.Fatal(err)
	}
	if n := fake.gens[len(fake.gens)-1].NumCtx; n != 8192 {
		t.Errorf("a 2,800-word chunk: num_ctx %d, want the next power of two that holds it (8192)", n)
	}
}

// TestLineProbabilities_EachLineItsTokens: a line's probabilities are those
// of the tokens that write a character of it, a token across a line break
// counting for both lines, the newline itself for neither; tokens that do
// not spell the text give none.
func TestLineProbabilities_EachLineItsTokens(t *testing.T) {
	text := "A | x\nB | y"
	tokens := []string{"A", " |", " x", "\nB", " |", " y"}
	lps := []float64{-0.1, -0.01, -2, -0.5, -0.01, -0.2}
	got := lineProbabilities(text, tokens, lps)
	if len(got) != 2 {
		t.Fatalf("%d lines, want 2", len(got))
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(got[0].least, math.Exp(-2)) || !near(got[0].mean, math.Exp((-0.1-0.01-2)/3)) {
		t.Errorf("line 1: %+v", got[0])
	}
	// "\nB" writes the B of line 2: its probability counts there.
	if !near(got[1].least, math.Exp(-0.5)) || !near(got[1].mean, math.Exp((-0.5-0.01-0.2)/3)) {
		t.Errorf("line 2: %+v", got[1])
	}
	// A reply the client cut short: the tokens run on past the text.
	if got := lineProbabilities("A | x\n", tokens, lps); len(got) != 2 || !near(got[0].least, math.Exp(-2)) || got[1] != (lineProb{}) {
		t.Errorf("cut reply: %+v", got)
	}
	for name, toks := range map[string][]string{"other text": {"A", " |", " z", "\nB", " |", " y"}, "none": nil} {
		if got := lineProbabilities(text, toks, lps[:len(toks)]); got != nil {
			t.Errorf("%s: %+v, want nil", name, got)
		}
	}
}

// TestExtractor_ConfidenceIsGroundingTimesTheLinesProbability: the line
// format asks for log probabilities, a fact's confidence is its grounding
// times its line's least token probability, and MinConfidence drops the
// facts under it with their reason; a chat-mode fact (no probability) is
// kept by its grounding.
func TestExtractor_ConfidenceIsGroundingTimesTheLinesProbability(t *testing.T) {
	lines := "Kestrel Alloys | Company | based_in | Sheffield | City\nVelora Cycles | Company | buys_from | Kestrel Alloys | Company\n"
	tokens := []string{"Kestrel Alloys | Company | based_in | Sheffield | City", "\n", "Velora", " Cycles | Company | buys_from | Kestrel Alloys | Company", "\n"}
	reply := stop(lines)
	reply.LogprobTokens, reply.Logprobs = tokens, []float64{-0.05, -0.01, -1.6, -0.1, -0.01}
	for _, tc := range []struct {
		min  float64
		kept int
	}{{0, 2}, {0.5, 1}, {0.99, 0}} {
		fake := &scriptedGen{replies: []llm.ChatResponse{reply}}
		ex, err := New(fake, nil, Options{Model: "m", Mode: ModeCompletion, Format: FormatLines, MinConfidence: tc.min})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ex.Process(context.Background(), veloraChunk())
		if err != nil {
			t.Fatal(err)
		}
		if !fake.gens[0].Logprobs {
			t.Error("the line format did not ask for log probabilities")
		}
		if len(res.Triplets) != tc.kept {
			t.Fatalf("min %v: kept %d, want %d (%+v)", tc.min, len(res.Triplets), tc.kept, res.Triplets)
		}
		if st := ex.Stats(); st.Dropped[DropLowConfidence] != 2-tc.kept {
			t.Errorf("min %v: dropped %v", tc.min, st.Dropped)
		}
		for _, tr := range res.Triplets {
			if tr.Predicate == "based_in" && math.Abs(tr.Confidence-math.Exp(-0.05)) > 1e-9 {
				t.Errorf("confidence %v, want exp(-0.05): exact grounding times the line's probability", tr.Confidence)
			}
		}
	}
	js := `{"triplets":[{"evidence":"Kestrel Alloys is based in Sheffield.","subject":"Kestrel Alloys","subject_type":"company","predicate":"based_in","object":"Sheffield","object_type":"city"}],"entities":[]}`
	ex, err := New(&scriptedGen{replies: []llm.ChatResponse{stop(js)}}, nil, Options{Model: "m", MinConfidence: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := ex.Process(context.Background(), veloraChunk()); err != nil || len(res.Triplets) != 1 || res.Triplets[0].Confidence != 1 {
		t.Errorf("chat mode: %v, %+v; want the fact kept at its grounding's confidence", err, res.Triplets)
	}
}
