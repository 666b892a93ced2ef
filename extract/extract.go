package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"kgforge/kg"
	"kgforge/llm"
	"kgforge/prompts"
)

// Chatter is the part of llm.Client the extractor needs.
type Chatter interface {
	Chat(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error)
}

// Cache stores raw LLM replies by content address. Implementations are safe
// for concurrent use; Get reports a miss with ok false.
type Cache interface {
	Get(key string) (val []byte, ok bool)
	Put(key string, val []byte) error
}

// Options configure an Extractor.
type Options struct {
	Model       string // chat model name
	ModelDigest string // its digest on the server, part of the cache key
	MaxCtx      int    // largest context window to ask for; 0 means 8192
	NumPredict  int    // bound on completion tokens; 0 means 512
	Attempts    int    // calls per chunk when the reply is not valid JSON; 0 means 2
}

// Extractor extracts grounded triplets from chunks. It is safe for
// concurrent use.
type Extractor struct {
	llm    Chatter
	cache  Cache
	prompt *prompts.Prompt
	// example is the worked example that opens every conversation, rendered
	// once: it is the same for every chunk.
	example []llm.Message
	opts    Options
	mu      sync.Mutex // guards stats
	stats   Stats
}

// Stats counts what extraction did, with drops by reason.
type Stats struct {
	Chunks    int            `json:"chunks"`
	CacheHits int            `json:"cache_hits"`
	Skipped   int            `json:"chunks_without_sentences"` // nothing to ask the model about
	Kept      int            `json:"triplets_kept"`
	Dropped   map[string]int `json:"triplets_dropped"`
}

// Drop reasons.
const (
	DropEvidenceNotFound = "evidence_not_found"
	DropSubjectNotFound  = "subject_not_in_chunk"
	DropObjectNotFound   = "object_not_in_chunk"
	DropIncomplete       = "incomplete_triplet"
	DropDuplicate        = "duplicate_in_chunk"
	DropSelfLoop         = "subject_is_object"
)

// maxTriplets bounds the reply: a small model at temperature 0 otherwise
// tends to repeat one fact until the output-token bound cuts it.
const maxTriplets = 6

// SchemaFor returns the JSON schema the model's reply must follow for a
// chunk with the given sentences. The evidence comes first and is an enum of
// the chunk's own sentences, so the grammar itself keeps the model from
// inventing a quote; subject and object still have to be found in it.
func SchemaFor(sentences []string) json.RawMessage {
	str := map[string]any{"type": "string"}
	item := map[string]any{
		"type": "object",
		"properties": orderedProps{
			{"evidence", map[string]any{"type": "string", "enum": sentences}},
			{"subject", str},
			{"subject_type", str},
			{"predicate", str},
			{"object", str},
			{"object_type", str},
		},
		"required": []string{"evidence", "subject", "subject_type", "predicate", "object", "object_type"},
	}
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"triplets": map[string]any{"type": "array", "maxItems": maxTriplets, "items": item}},
		"required":   []string{"triplets"},
	}
	b, _ := json.Marshal(schema) // maps of strings and slices always marshal
	return b
}

// orderedProps marshals as a JSON object that keeps its keys in order: the
// grammar Ollama builds from a schema follows the order of its properties.
type orderedProps []struct {
	key string
	val any
}

func (o orderedProps) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.key)
		v, err := json.Marshal(kv.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// minSentence is the shortest text worth offering as evidence.
const minSentence = 10

// Sentences cuts text into its sentences and lines, trimmed, in order,
// without duplicates; pieces shorter than minSentence bytes and Markdown
// headings (which name a section, they state nothing) are left out.
func Sentences(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) >= minSentence && !seen[s] && !strings.HasPrefix(s, "#") {
			seen[s] = true
			out = append(out, s)
		}
	}
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			add(text[start:i])
			start = i + 1
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t' {
				add(text[start : i+1])
				start = i + 1
			}
		}
	}
	add(text[start:])
	return out
}

// New returns an extractor. cache may be nil.
func New(c Chatter, cache Cache, opts Options) (*Extractor, error) {
	p, err := prompts.Load("extract.tmpl")
	if err != nil {
		return nil, err
	}
	if opts.MaxCtx == 0 {
		opts.MaxCtx = 8192
	}
	if opts.NumPredict == 0 {
		opts.NumPredict = 512
	}
	if opts.Attempts == 0 {
		opts.Attempts = 2
	}
	example, err := renderExample(p)
	if err != nil {
		return nil, err
	}
	return &Extractor{llm: c, cache: cache, prompt: p, example: example, opts: opts, stats: Stats{Dropped: map[string]int{}}}, nil
}

// PromptVersion returns the version of the extraction prompt.
func (e *Extractor) PromptVersion() string { return e.prompt.Version }

// Stats returns a copy of the counters.
func (e *Extractor) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := make(map[string]int, len(e.stats.Dropped))
	for k, v := range e.stats.Dropped {
		d[k] = v
	}
	return Stats{Chunks: e.stats.Chunks, CacheHits: e.stats.CacheHits, Skipped: e.stats.Skipped, Kept: e.stats.Kept, Dropped: d}
}

// Reply is the model's reply for one chunk.
type Reply struct {
	Triplets []RawTriplet `json:"triplets"`
}

// RawTriplet is one triplet as the model proposed it, before grounding.
type RawTriplet struct {
	Subject     string `json:"subject"`
	SubjectType string `json:"subject_type"`
	Predicate   string `json:"predicate"`
	Object      string `json:"object"`
	ObjectType  string `json:"object_type"`
	Evidence    string `json:"evidence"`
}

// retryTemperature is the sampling temperature of a retry after a reply
// that was not valid JSON.
const retryTemperature = 0.4

// ErrTooLong means a chunk with its prompt does not fit the context window.
var ErrTooLong = errors.New("chunk does not fit the model's context window")

// Process extracts the grounded triplets of one chunk. An error wrapping
// kg.ErrRejected means this chunk alone failed.
func (e *Extractor) Process(ctx context.Context, c kg.Chunk) ([]kg.Triplet, error) {
	sentences := Sentences(c.Text)
	if len(sentences) == 0 {
		e.count(nil, false, true, nil)
		return nil, nil // a heading or a fragment: nothing to state a fact
	}
	msgs, err := e.messages(c.Text)
	if err != nil {
		return nil, err
	}
	size := 0
	for _, m := range msgs {
		size += len(m.Content)
	}
	// About three bytes per token is a safe over-estimate for prose, so the
	// window is never too small; Ollama would silently cut the prompt if it were.
	numCtx := roundUp(size/3+e.opts.NumPredict+64, 512)
	if numCtx > e.opts.MaxCtx {
		return nil, fmt.Errorf("extract chunk %s: %w: %w: needs about %d tokens, limit %d", c.ID, kg.ErrRejected, ErrTooLong, numCtx, e.opts.MaxCtx)
	}
	schema := SchemaFor(sentences)
	key := kg.ID("extract", e.opts.Model, e.opts.ModelDigest, e.prompt.Version, string(schema),
		fmt.Sprint(numCtx, e.opts.NumPredict), c.Text)
	raw, hit := e.cacheGet(key)
	var parsed Reply
	if hit {
		if err := json.Unmarshal(raw, &parsed); err != nil {
			hit = false
		}
	}
	if !hit {
		parsed, raw, err = e.ask(ctx, c, msgs, schema, numCtx)
		if err != nil {
			return nil, err
		}
		if e.cache != nil {
			if err := e.cache.Put(key, raw); err != nil {
				return nil, fmt.Errorf("extract chunk %s: cache reply: %w", c.ID, err)
			}
		}
	}
	triplets, drops := e.ground(c, parsed.Triplets)
	e.count(triplets, hit, false, drops)
	return triplets, nil
}

// renderExample renders the worked example: the instruction on the example
// passage, and the answer to it.
func renderExample(p *prompts.Prompt) ([]llm.Message, error) {
	passage, err := p.RenderPart("example_passage", nil)
	if err != nil {
		return nil, err
	}
	q, err := p.RenderPart("instruction", map[string]string{"Text": passage})
	if err != nil {
		return nil, err
	}
	a, err := p.RenderPart("example_answer", nil)
	if err != nil {
		return nil, err
	}
	return []llm.Message{{Role: "user", Content: q}, {Role: "assistant", Content: a}}, nil
}

// messages builds the conversation: the worked example, then the chunk.
func (e *Extractor) messages(text string) ([]llm.Message, error) {
	q, err := e.prompt.RenderPart("instruction", map[string]string{"Text": text})
	if err != nil {
		return nil, err
	}
	return append(slices.Clip(e.example), llm.Message{Role: "user", Content: q}), nil
}

func (e *Extractor) count(kept []kg.Triplet, hit, skipped bool, drops map[string]int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stats.Chunks++
	if hit {
		e.stats.CacheHits++
	}
	if skipped {
		e.stats.Skipped++
	}
	e.stats.Kept += len(kept)
	for k, v := range drops {
		e.stats.Dropped[k] += v
	}
}

func (e *Extractor) cacheGet(key string) ([]byte, bool) {
	if e.cache == nil {
		return nil, false
	}
	return e.cache.Get(key)
}

// ask calls the model until it returns parsable JSON, up to opts.Attempts
// times, and returns the parsed reply with its canonical JSON.
func (e *Extractor) ask(ctx context.Context, c kg.Chunk, msgs []llm.Message, schema json.RawMessage, numCtx int) (Reply, []byte, error) {
	var lastErr error
	for attempt := range e.opts.Attempts {
		// At temperature 0 a retry would repeat the same reply; later
		// attempts sample a little, with a fixed seed to stay reproducible.
		temp := 0.0
		if attempt > 0 {
			temp = retryTemperature
		}
		resp, err := e.llm.Chat(ctx, llm.ChatRequest{
			Model: e.opts.Model, Schema: schema, NumCtx: numCtx, NumPredict: e.opts.NumPredict,
			Temperature: temp, Seed: attempt, Messages: msgs,
		})
		if err != nil {
			if ctx.Err() != nil {
				return Reply{}, nil, ctx.Err()
			}
			return Reply{}, nil, fmt.Errorf("extract chunk %s: %w: %w", c.ID, kg.ErrRejected, err)
		}
		parsed, err := ParseReply(resp.Content)
		if err == nil {
			raw, err := json.Marshal(parsed)
			return parsed, raw, err
		}
		lastErr = err
	}
	return Reply{}, nil, fmt.Errorf("extract chunk %s: %w: reply is not valid JSON after %d attempts: %w", c.ID, kg.ErrRejected, e.opts.Attempts, lastErr)
}

// ParseReply decodes the model's reply. A reply cut inside the triplets
// array (the output-token bound was reached) keeps its complete triplets.
func ParseReply(content string) (Reply, error) {
	var r Reply
	err := json.Unmarshal([]byte(content), &r)
	if err == nil {
		return r, nil
	}
	if fixed, ok := repairTruncated(content); ok {
		if err2 := json.Unmarshal([]byte(fixed), &r); err2 == nil {
			return r, nil
		}
	}
	return Reply{}, fmt.Errorf("parse reply: %w", err)
}

// repairTruncated cuts s after the last complete object in the top-level
// "triplets" array and closes the array and the object. Only that one shape
// of damage is repaired; anything else is left to a retry.
func repairTruncated(s string) (string, bool) {
	depth, inStr, esc := 0, false, false
	last := -1
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if ch == '}' && depth == 2 {
				last = i
			}
		}
	}
	if last < 0 || depth <= 0 {
		return "", false
	}
	return s[:last+1] + "]}", true
}

func (e *Extractor) ground(c kg.Chunk, raws []RawTriplet) ([]kg.Triplet, map[string]int) {
	drops := map[string]int{}
	seen := map[string]bool{}
	var out []kg.Triplet
	for _, r := range raws {
		subj, obj, pred := strings.TrimSpace(r.Subject), strings.TrimSpace(r.Object), NormalizePredicate(r.Predicate)
		if subj == "" || obj == "" || pred == "" {
			drops[DropIncomplete]++
			continue
		}
		evSpan, m := Locate(c.Text, r.Evidence)
		if m == MatchNone {
			drops[DropEvidenceNotFound]++
			continue
		}
		evidence := c.Text[evSpan.Start:evSpan.End]
		sSpan, ok := locateName(c.Text, evSpan, subj)
		if !ok {
			drops[DropSubjectNotFound]++
			continue
		}
		oSpan, ok := locateName(c.Text, evSpan, obj)
		if !ok {
			drops[DropObjectNotFound]++
			continue
		}
		if kg.NormalizeName(subj) == kg.NormalizeName(obj) {
			drops[DropSelfLoop]++
			continue
		}
		id := kg.ID("triplet", c.ID, kg.NormalizeName(subj), pred, kg.NormalizeName(obj))
		if seen[id] {
			drops[DropDuplicate]++
			continue
		}
		seen[id] = true
		shift := func(s kg.Span) kg.Span { return kg.Span{Start: c.Span.Start + s.Start, End: c.Span.Start + s.End} }
		subjType, objType := NormalizeType(r.SubjectType), NormalizeType(r.ObjectType)
		out = append(out, kg.Triplet{
			ID:        id,
			ChunkID:   c.ID,
			Subject:   kg.Mention{ID: kg.ID("mention", c.ID, subj, subjType), ChunkID: c.ID, Surface: subj, Type: subjType, Span: shift(sSpan)},
			Object:    kg.Mention{ID: kg.ID("mention", c.ID, obj, objType), ChunkID: c.ID, Surface: obj, Type: objType, Span: shift(oSpan)},
			Predicate: pred, Evidence: evidence, EvidenceSpan: shift(evSpan),
			Confidence: confidenceOf(m), Model: e.opts.Model, PromptVersion: e.prompt.Version,
		})
	}
	return out, drops
}

// locateName finds a name inside the evidence first, then anywhere in the chunk.
func locateName(text string, ev kg.Span, name string) (kg.Span, bool) {
	if s, m := Locate(text[ev.Start:ev.End], name); m != MatchNone {
		return kg.Span{Start: ev.Start + s.Start, End: ev.Start + s.End}, true
	}
	s, m := Locate(text, name)
	return s, m != MatchNone
}

func confidenceOf(m Match) float64 {
	if m == MatchExact {
		return 1
	}
	return 0.9
}

// NormalizePredicate returns a predicate in lower snake case with only
// letters, digits and underscores.
func NormalizePredicate(p string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.TrimSpace(p) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.TrimRight(b.String(), "_")
}

// NormalizeType returns an entity type in upper camel case ("quality
// incident" → "QualityIncident"); an empty type becomes "Thing".
func NormalizeType(t string) string {
	var b strings.Builder
	upper := true
	for _, r := range strings.TrimSpace(t) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = true
			continue
		}
		if upper {
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		} else {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "Thing"
	}
	return b.String()
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }
