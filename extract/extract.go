package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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

// EvidenceMode says what the model may give as evidence.
type EvidenceMode string

// The evidence modes.
const (
	// EvidenceSentences makes the evidence an enum of the chunk's sentences
	// (see Sentences): the grammar rules out an invented quote.
	EvidenceSentences EvidenceMode = "sentences"
	// EvidenceQuote lets the model quote freely; the quote is then located
	// exactly, normalised or fuzzily (see Locate).
	EvidenceQuote EvidenceMode = "quote"
)

// MaxGleanings bounds Options.Gleanings.
const MaxGleanings = 3

// DefaultWindow is Options.Window's default, about a sentence: on the
// example, windows of 32 tokens kept more right facts than 120 or the
// whole chunk (and than 60, with the stage-1 adapter), at 17 % more model
// time than 120 (docs/benchmarks.md, "kgforge-extract stage 2").
const DefaultWindow = 32

// Options configure an Extractor.
type Options struct {
	Model       string        // chat model name
	ModelDigest string        // its digest on the server, part of the cache key
	Mode        Mode          // how the model is driven; "" means ModeChat, ModeAuto is resolved by ModeFor first
	Format      Format        // the completion mode's reply form; "" means DefaultFormat
	Think       bool          // let a thinking model think first; false sends think: false
	Prompt      string        // embedded prompt file of the chat mode; "" means extract.tmpl
	Schema      Schema        // allowed types and predicates; zero means free
	Evidence    EvidenceMode  // "" means EvidenceSentences
	Gleanings   int           // extra "what did you miss?" turns per chunk, 0..MaxGleanings
	MaxCtx      int           // largest context window to ask for; 0 means 8192
	NumPredict  int           // most completion tokens a reply may have (sized per chunk below it, see replyBound); 0 means 512
	Attempts    int           // calls per chunk when the reply is not valid JSON; 0 means 2
	KeepAlive   time.Duration // how long Ollama keeps the model loaded after a call; 0 means 10 minutes
	// Window is, in the specialist mode, the most tokens (four bytes
	// each) of a chunk one call reads: the chunk's sentences go to the
	// model in consecutive runs of whole sentences up to that size, and
	// every run's facts are grounded in the whole chunk. 0 means
	// DefaultWindow, a negative value one call for the whole chunk. The
	// specialist was trained on passages of one to six sentences and
	// writes a few facts a call, so a long chunk read whole loses most of
	// its facts (docs/benchmarks.md, "kgforge-extract"). Other modes read
	// the chunk whole.
	Window int

	// Ungrounded keeps every complete triplet the model returns, without
	// locating its evidence, subject or object in the chunk and without
	// checking its types against a relation's domain and range: the plain
	// extraction of other systems, for measuring what grounding does
	// (bench/extractq). Builds never set it. It is not part of the cache
	// key: grounding runs on cached replies.
	Ungrounded bool

	// OnDrop, when set, is called with every triplet of a reply that is
	// not kept and the reason (one of the Drop constants): a diagnostic
	// for benchmarks (bench/extractq -dump), not part of the cache key.
	// It may be called from several goroutines at once.
	OnDrop func(chunkID string, t RawTriplet, reason string) `json:"-"`

	// MinConfidence drops a triplet whose Confidence is under it (reason
	// low_confidence). A triplet's confidence is how well its evidence
	// was found in the chunk times, where the model gave one, its
	// probability of the line it wrote the triplet on (RawTriplet.Prob):
	// a model that gives none (the chat mode) is kept by its grounding
	// alone. 0 keeps every grounded triplet.
	MinConfidence float64 `json:",omitempty"`
}

// Extractor extracts grounded triplets and entities from chunks. It is safe
// for concurrent use.
type Extractor struct {
	llm     Chatter
	cache   Cache
	prompt  *prompts.Prompt
	version string // prompt version, with the schema's digest when there is one
	// system opens every conversation; rendered once, it is the same for
	// every chunk. The worked examples rotate (examplesFor).
	system   llm.Message
	glean    llm.Message
	examples []example
	// exampleText is the text of the worked examples the prompts show: a
	// subject or object found there but not in the chunk was copied.
	exampleText string
	types       vocabulary
	preds       map[string]RelationType
	opts        Options
	mu          sync.Mutex // guards stats
	stats       Stats
}

// Stats counts what extraction did, with drops by reason.
type Stats struct {
	Chunks    int `json:"chunks"`
	CacheHits int `json:"cache_hits"`
	Skipped   int `json:"chunks_without_sentences"` // nothing to ask the model about
	TooLong   int `json:"chunks_too_long"`          // rejected: prompt and reply over llm.max_context
	Calls     int `json:"llm_calls"`                // chat calls made, retries and gleanings included
	// Cut counts the replies that ended before the model finished them, by
	// reason: "length" (the output bound, see replyBound), "incomplete"
	// (the server stopped short of its final message) or "repeat" (the
	// line format: kgforge ended the reply where it began a line it had
	// written, every line before that whole).
	Cut             map[string]int `json:"replies_cut"`
	GleaningCalls   int            `json:"gleaning_calls"`
	Gleaned         int            `json:"triplets_gleaned"` // kept triplets that only a gleaning turn found
	Kept            int            `json:"triplets_kept"`
	Dropped         map[string]int `json:"triplets_dropped"`
	EntitiesKept    int            `json:"entities_kept"`
	EntitiesDropped map[string]int `json:"entities_dropped"`
}

// Drop reasons.
const (
	DropEvidenceNotFound = "evidence_not_found"
	DropSubjectNotFound  = "subject_not_in_chunk"
	DropObjectNotFound   = "object_not_in_chunk"
	DropIncomplete       = "incomplete_triplet"
	DropDuplicate        = "duplicate_in_chunk"
	DropSelfLoop         = "subject_is_object"
	DropOutsideSchema    = "outside_schema" // a type or predicate the pipeline's schema does not allow
	DropLowConfidence    = "low_confidence" // a confidence under Options.MinConfidence
	DropEntityNotFound   = "entity_not_in_chunk"
	DropEntityIncomplete = "incomplete_entity"
	DropMalformedLine    = "malformed_line" // completion mode, line format: a line that is not five fields
)

// Result is what one chunk yields: its grounded triplets, and the grounded
// entities the model listed (also those in no triplet).
type Result struct {
	Triplets []kg.Triplet
	Entities []kg.Mention
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
	if opts.Prompt == "" {
		opts.Prompt = "extract.tmpl"
	}
	if opts.Mode == "" {
		opts.Mode = ModeChat
	}
	if opts.Format == "" {
		opts.Format = DefaultFormat
		if opts.Mode == ModeSpecialist {
			opts.Format = FormatLines // the form it was trained to write
		}
	}
	var p *prompts.Prompt
	var err error
	switch opts.Mode {
	case ModeChat:
		p, err = prompts.Load(opts.Prompt)
	case ModeCompletion:
		p, err = checkCompletion(opts)
	case ModeSpecialist:
		p, err = checkSpecialist(opts)
	default:
		err = fmt.Errorf("new extractor: mode %q: must be %s, %s or %s (resolve %s with ModeFor)", opts.Mode, ModeChat, ModeCompletion, ModeSpecialist, ModeAuto)
	}
	if err != nil {
		return nil, err
	}
	if opts.Evidence == "" {
		opts.Evidence = EvidenceSentences
	}
	if opts.Evidence != EvidenceSentences && opts.Evidence != EvidenceQuote {
		return nil, fmt.Errorf("new extractor: evidence mode %q: must be %s or %s", opts.Evidence, EvidenceSentences, EvidenceQuote)
	}
	if opts.Gleanings < 0 || opts.Gleanings > MaxGleanings {
		return nil, fmt.Errorf("new extractor: gleanings %d: must be between 0 and %d", opts.Gleanings, MaxGleanings)
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
	if opts.KeepAlive == 0 {
		opts.KeepAlive = 10 * time.Minute
	}
	var examples []example
	var exVersion string
	if opts.Mode != ModeSpecialist { // the specialist's prompt shows none
		if examples, exVersion, err = loadExamples(); err != nil {
			return nil, err
		}
	}
	e := &Extractor{
		llm: c, cache: cache, prompt: p, opts: opts, examples: examples, exampleText: examplesText(examples),
		types: opts.Schema.entityTypes(), preds: opts.Schema.relations(),
		stats: Stats{Dropped: map[string]int{}, EntitiesDropped: map[string]int{}, Cut: map[string]int{}},
	}
	e.version = promptVersion(opts, p.Version, exVersion)
	if opts.Mode == ModeCompletion || opts.Mode == ModeSpecialist {
		return e, nil
	}
	system, err := p.RenderPart("system", opts.Schema)
	if err != nil {
		return nil, err
	}
	e.system = llm.Message{Role: "system", Content: system}
	glean, err := p.RenderPart("glean", nil)
	if err != nil {
		return nil, err
	}
	e.glean = llm.Message{Role: "user", Content: glean}
	return e, nil
}

// promptVersion names what a reply depends on besides the model and the
// chunk: the mode (and the completion format), the prompt file's version,
// the worked examples' version (none in the specialist mode, whose prompt
// shows none), and the schema's digest when there is one.
// Replies of one mode never serve the other: the version is in the cache
// key.
func promptVersion(opts Options, prompt, examples string) string {
	v := string(opts.Mode)
	if opts.Mode == ModeCompletion {
		v += "-" + string(opts.Format)
	}
	v += ":" + prompt
	if len(examples) >= 6 {
		v += "." + examples[:6]
	}
	if d := opts.Schema.digest(); d != "" {
		v += "+" + d[:8]
	}
	return v
}

// PromptVersion returns the version of the extraction prompt:
// "MODE:PROMPT.EXAMPLES", where MODE is chat, completion-FORMAT or
// specialist (which has no ".EXAMPLES"), PROMPT
// the hash of the prompt file's text and EXAMPLES the first 6 hex digits of
// the worked examples' hash, followed by "+" and the first 8 hex digits of
// the schema's digest when the pipeline gives a schema (it changes the
// prompt).
func (e *Extractor) PromptVersion() string { return e.version }

// Stats returns a copy of the counters.
func (e *Extractor) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.stats
	s.Dropped = make(map[string]int, len(e.stats.Dropped))
	for k, v := range e.stats.Dropped {
		s.Dropped[k] = v
	}
	s.EntitiesDropped = make(map[string]int, len(e.stats.EntitiesDropped))
	for k, v := range e.stats.EntitiesDropped {
		s.EntitiesDropped[k] = v
	}
	s.Cut = make(map[string]int, len(e.stats.Cut))
	for k, v := range e.stats.Cut {
		s.Cut[k] = v
	}
	return s
}

// retryTemperature is the sampling temperature of a retry after a reply
// that was not valid JSON.
const retryTemperature = 0.4

// ErrTooLong means a chunk with its prompt does not fit the context window.
var ErrTooLong = errors.New("chunk does not fit the context window")

// Process extracts the grounded triplets and entities of one chunk. An
// error wrapping kg.ErrRejected means this chunk alone failed.
func (e *Extractor) Process(ctx context.Context, c kg.Chunk) (Result, error) {
	sentences := Sentences(c.Text)
	if len(sentences) == 0 {
		e.count(chunkStats{skipped: true})
		return Result{}, nil // a heading or a fragment: nothing to state a fact
	}
	var enum []string
	if e.opts.Evidence == EvidenceSentences {
		enum = sentences
	}
	schema := SchemaFor(enum, e.opts.Schema)
	if e.opts.Mode == ModeCompletion || e.opts.Mode == ModeSpecialist {
		return e.processCompletion(ctx, c, sentences, schema)
	}
	msgs, err := e.messages(c)
	if err != nil {
		return Result{}, err
	}
	b := bounds{predict: replyBound(FormatJSON, sentences, e.opts.NumPredict), schema: schema}
	if b.ctx, err = e.numCtx(conversationSize(msgs), b.predict); err != nil {
		e.count(chunkStats{tooLong: true})
		return Result{}, fmt.Errorf("extract chunk %s: %w", c.ID, err)
	}
	key := e.key(b, conversationText(msgs))
	st := chunkStats{cut: map[string]int{}}
	first, hit, err := e.reply(ctx, c, key, &st, e.chatAsk(msgs, b))
	if err != nil {
		e.count(st)
		return Result{}, err
	}
	st.hit = hit
	replies, err := e.gleanings(ctx, c, key, msgs, first, b, &st)
	if err != nil {
		e.count(st)
		return Result{}, err
	}
	res, drops := e.ground(c, replies)
	st.res, st.drops = res, drops
	e.count(st)
	return res, nil
}

// processCompletion is Process in the completion and specialist modes: one
// raw completion call on the chunk (the specialist: one a window of it, see
// Options.Window), no gleaning.
func (e *Extractor) processCompletion(ctx context.Context, c kg.Chunk, sentences []string, schema []byte) (Result, error) {
	parts := [][]string{sentences}
	if e.opts.Mode == ModeSpecialist {
		parts = windows(sentences, e.window())
	}
	st := chunkStats{cut: map[string]int{}, hit: true}
	var replies []Reply
	malformed := 0
	for _, part := range parts {
		passage := c
		if len(parts) > 1 {
			passage.Text = strings.Join(part, " ")
		}
		prompt, err := e.completionPrompt(passage)
		if err != nil {
			return Result{}, err
		}
		b := bounds{predict: replyBound(e.opts.Format, part, e.opts.NumPredict), schema: schema}
		if b.ctx, err = e.numCtx(len(prompt), b.predict); err != nil {
			e.count(chunkStats{tooLong: true})
			return Result{}, fmt.Errorf("extract chunk %s: %w", c.ID, err)
		}
		r, hit, err := e.reply(ctx, c, e.key(b, prompt), &st, func(ctx context.Context, temp float64, seed int) (llm.ChatResponse, Reply, error) {
			return e.generate(ctx, prompt, part, b, temp, seed)
		})
		if err != nil {
			st.hit = false
			e.count(st)
			return Result{}, err
		}
		st.hit = st.hit && hit
		replies = append(replies, r)
		malformed += r.Malformed
	}
	res, drops := e.ground(c, replies)
	if malformed > 0 {
		drops.triplets[DropMalformedLine] += malformed
	}
	st.res, st.drops = res, drops
	e.count(st)
	return res, nil
}

// window is the specialist's window in tokens; 0 for the whole chunk.
func (e *Extractor) window() int {
	switch {
	case e.opts.Window < 0:
		return 0
	case e.opts.Window == 0:
		return DefaultWindow
	}
	return e.opts.Window
}

// windows splits a chunk's sentences into consecutive runs of at most
// maxTokens (four bytes a token; a longer sentence is a run alone), in
// order, each sentence in one run; maxTokens 0 keeps them in one.
func windows(sentences []string, maxTokens int) [][]string {
	if maxTokens <= 0 {
		return [][]string{sentences}
	}
	var out [][]string
	var cur []string
	size := 0
	for _, s := range sentences {
		n := (len(s) + 1 + 3) / 4
		if len(cur) > 0 && size+n > maxTokens {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, s)
		size += n
	}
	return append(out, cur)
}

// gleanings runs the "what did you miss?" turns after the first reply.
// The conversation goes on with the canonical form of each reply, so a
// gleaning turn is as reproducible (and cacheable) as the first one.
func (e *Extractor) gleanings(ctx context.Context, c kg.Chunk, key string, msgs []llm.Message, first Reply, b bounds, st *chunkStats) ([]Reply, error) {
	replies := []Reply{first}
	conv, prev := msgs, first
	for i := range e.opts.Gleanings {
		canon, err := json.Marshal(prev)
		if err != nil {
			return nil, err
		}
		conv = append(slices.Clip(conv), llm.Message{Role: "assistant", Content: string(canon)}, e.glean)
		gb := b
		if gb.ctx, err = e.numCtx(conversationSize(conv), b.predict); err != nil {
			break // the conversation outgrew the window: keep what came so far
		}
		gkey := kg.ID(key, "glean", strconv.Itoa(i+1), strconv.Itoa(gb.ctx))
		st.gleanings++
		r, _, err := e.reply(ctx, c, gkey, st, e.chatAsk(conv, gb))
		if err != nil {
			if errors.Is(err, kg.ErrRejected) {
				break // the first reply stands; a later run asks again
			}
			return nil, err
		}
		if r.empty() {
			break
		}
		replies = append(replies, r)
		prev = r
	}
	return replies, nil
}

// bounds are one call's sizes: the context window, the bound on
// completion tokens and the reply schema.
type bounds struct {
	ctx, predict int
	schema       json.RawMessage
}

// key is the cache key of a call: the model, its digest, the prompt
// version (mode, format, prompt and examples), the sizes, the thinking
// switch, whether a repeated line ends the reply and its lines carry the
// model's probabilities (the line format) and the whole prompt text.
func (e *Extractor) key(b bounds, prompt string) string {
	var lines any = false // as it was before the line format had probabilities
	if e.opts.Format == FormatLines {
		lines = "lines+prob"
	}
	return kg.ID("extract", e.opts.Model, e.opts.ModelDigest, e.version, string(b.schema),
		fmt.Sprint(b.ctx, b.predict, e.opts.Think, lines), prompt)
}

func conversationSize(msgs []llm.Message) int {
	size := 0
	for _, m := range msgs {
		size += len(m.Content)
	}
	return size
}

func conversationText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role + "\x1e" + m.Content + "\x1f")
	}
	return b.String()
}

// numCtx returns the context window a prompt of size bytes needs: about
// three bytes per token is a safe over-estimate for prose, plus the reply
// bound and a margin for the chat template. Ollama would silently cut a
// prompt longer than its window, so one that does not fit is an error.
func (e *Extractor) numCtx(size, predict int) (int, error) {
	need := size/3 + predict + 64
	if need > e.opts.MaxCtx {
		return 0, fmt.Errorf("%w (%w): chunk needs %d tokens of context, over llm.max_context %d (raise llm.max_context or lower chunking.size)",
			kg.ErrRejected, ErrTooLong, need, e.opts.MaxCtx)
	}
	return min(ctxBucket(need), e.opts.MaxCtx), nil
}

// ctxBucket is the context window asked for a call that needs n tokens:
// the smallest power of two of at least 2,048. Ollama restarts a model's
// runner whenever num_ctx differs from the loaded one's (0.75 s, and the
// cached prompt is lost), so windows rounded finely made a build of
// chunks of mixed sizes reload every other call; a few coarse buckets keep
// one runner for nearly every chunk, at the cost of a larger KV cache
// allocation, not of compute (attention runs over the tokens present).
func ctxBucket(n int) int {
	b := 2048
	for b < n {
		b *= 2
	}
	return b
}

// askFunc makes one model call at a temperature and seed and parses it.
type askFunc func(ctx context.Context, temp float64, seed int) (llm.ChatResponse, Reply, error)

// reply returns the model's reply, from the cache or from the model (then
// stored in the cache); hit says which.
func (e *Extractor) reply(ctx context.Context, c kg.Chunk, key string, st *chunkStats, ask askFunc) (Reply, bool, error) {
	if raw, ok := e.cacheGet(key); ok {
		var r Reply
		if err := json.Unmarshal(raw, &r); err == nil {
			return r, true, nil
		}
	}
	r, raw, err := e.ask(ctx, c, st, ask)
	if err != nil {
		return Reply{}, false, err
	}
	if e.cache != nil {
		if err := e.cache.Put(key, raw); err != nil {
			return Reply{}, false, fmt.Errorf("extract chunk %s: cache reply: %w", c.ID, err)
		}
	}
	return r, false, nil
}

// chatAsk is the chat mode's call.
func (e *Extractor) chatAsk(msgs []llm.Message, b bounds) askFunc {
	return func(ctx context.Context, temp float64, seed int) (llm.ChatResponse, Reply, error) {
		resp, err := e.llm.Chat(ctx, llm.ChatRequest{
			Model: e.opts.Model, Schema: b.schema, NumCtx: b.ctx, NumPredict: b.predict,
			Temperature: temp, Seed: seed, Messages: msgs, KeepAlive: e.opts.KeepAlive, Think: e.opts.Think,
		})
		if err != nil {
			return resp, Reply{}, err
		}
		return parseJSON(resp)
	}
}

// badReplyError is a reply that came but does not parse: worth another
// attempt, unlike a failed call.
type badReplyError struct{ err error }

func (b *badReplyError) Error() string { return b.err.Error() }

// parseJSON parses a reply in the schema's JSON.
func parseJSON(resp llm.ChatResponse) (llm.ChatResponse, Reply, error) {
	r, err := ParseReply(resp.Content)
	if err != nil {
		return resp, Reply{}, &badReplyError{err}
	}
	return resp, r, nil
}

// passageTag matches the delimiters the instruction puts around a passage.
var passageTag = regexp.MustCompile(`(?i)<\s*(/?)\s*passage\s*>`)

// messages builds the conversation: the instructions as the system message,
// the chunk's worked examples (examplesFor) as turns, then the chunk. The
// chunk is data: it goes only into the last user message, between
// <passage> tags that it cannot close (a tag inside it is defused).
func (e *Extractor) messages(c kg.Chunk) ([]llm.Message, error) {
	exs := e.examplesFor(c.ID)
	msgs := make([]llm.Message, 0, 2*len(exs)+2)
	msgs = append(msgs, e.system)
	for _, x := range exs {
		q, err := e.prompt.RenderPart("instruction", map[string]string{"Text": x.passage})
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, llm.Message{Role: "user", Content: q}, llm.Message{Role: "assistant", Content: replyJSON(x.reply)})
	}
	text := passageTag.ReplaceAllString(c.Text, "[${1}passage]")
	q, err := e.prompt.RenderPart("instruction", map[string]string{"Text": text})
	if err != nil {
		return nil, err
	}
	return append(msgs, llm.Message{Role: "user", Content: q}), nil
}

// chunkStats is what one chunk adds to Stats.
type chunkStats struct {
	hit, skipped, tooLong bool
	calls, gleanings      int
	cut                   map[string]int
	res                   Result
	drops                 drops
}

func (e *Extractor) count(s chunkStats) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stats.Chunks++
	if s.hit {
		e.stats.CacheHits++
	}
	if s.skipped {
		e.stats.Skipped++
	}
	if s.tooLong {
		e.stats.TooLong++
	}
	e.stats.Calls += s.calls
	e.stats.GleaningCalls += s.gleanings
	e.stats.Gleaned += s.drops.gleaned
	e.stats.Kept += len(s.res.Triplets)
	e.stats.EntitiesKept += len(s.res.Entities)
	for k, v := range s.cut {
		e.stats.Cut[k] += v
	}
	for k, v := range s.drops.triplets {
		e.stats.Dropped[k] += v
	}
	for k, v := range s.drops.entities {
		e.stats.EntitiesDropped[k] += v
	}
}

func (e *Extractor) cacheGet(key string) ([]byte, bool) {
	if e.cache == nil {
		return nil, false
	}
	return e.cache.Get(key)
}

// ask calls the model until its reply parses, up to opts.Attempts times,
// and returns the parsed reply with its canonical JSON. Each reply cut
// before the model finished it is counted by reason.
func (e *Extractor) ask(ctx context.Context, c kg.Chunk, st *chunkStats, call askFunc) (Reply, []byte, error) {
	var lastErr error
	for attempt := range e.opts.Attempts {
		// At temperature 0 a retry would repeat the same reply; later
		// attempts sample a little, with a fixed seed to stay reproducible.
		temp := 0.0
		if attempt > 0 {
			temp = retryTemperature
		}
		st.calls++
		resp, parsed, err := call(ctx, temp, attempt)
		if why := cutReason(resp); why != "" {
			st.cut[why]++
		} else if resp.DoneReason == llm.DoneRepeat {
			st.cut[llm.DoneRepeat]++
		}
		var bad *badReplyError
		switch {
		case err == nil:
			raw, err := json.Marshal(parsed)
			return parsed, raw, err
		case errors.As(err, &bad):
			lastErr = bad.err
		case ctx.Err() != nil:
			return Reply{}, nil, ctx.Err()
		default:
			return Reply{}, nil, fmt.Errorf("extract chunk %s: %w: %w", c.ID, kg.ErrRejected, err)
		}
	}
	return Reply{}, nil, fmt.Errorf("extract chunk %s: %w: reply is not valid JSON after %d attempts: %w", c.ID, kg.ErrRejected, e.opts.Attempts, lastErr)
}
