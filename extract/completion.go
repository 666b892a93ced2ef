package extract

import (
	"context"
	"fmt"
	"math"
	"strings"

	"kgforge/kg"
	"kgforge/llm"
	"kgforge/prompts"
)

// Mode says how the model is driven.
type Mode string

// The modes.
const (
	// ModeAuto is resolved per model by ModeFor before New.
	ModeAuto Mode = "auto"
	// ModeChat sends a conversation to /api/chat: instructions, worked
	// examples as turns, then the chunk. For instruction-tuned models.
	ModeChat Mode = "chat"
	// ModeCompletion sends a few-shot pattern of passages and their facts
	// to /api/generate with raw set, for the model to continue. For base
	// models, which continue text and follow no instructions.
	ModeCompletion Mode = "completion"
	// ModeSpecialist sends kgforge's own extraction model (kgforge-extract,
	// trained by training/) the zero-shot prompt it was trained on
	// (prompts/extract_specialist.tmpl) on /api/generate with raw set; the
	// reply is in the line format. No worked examples: the model learnt the
	// task, and examples in the prompt only cost tokens.
	ModeSpecialist Mode = "specialist"
)

// ModeFor returns the mode for a model from what the server says of it:
// kgforge's own extraction model (its GGUF says kgforge.prompt =
// extract_specialist) is driven by its trained prompt, a base model (no
// template, or one that only passes the prompt through) by completion, any
// other by chat.
func ModeFor(info llm.ModelInfo) Mode {
	if info.Specialist == SpecialistPrompt {
		return ModeSpecialist
	}
	if info.Base() {
		return ModeCompletion
	}
	return ModeChat
}

// Format is the form of a completion-mode reply.
type Format string

// The completion formats.
const (
	// FormatLines asks for one fact a line, "subject | subject type |
	// predicate | object | object type", then END. A line that is not
	// exactly that is a counted drop (DropMalformedLine), never guessed at.
	FormatLines Format = "lines"
	// FormatJSON asks for the reply schema's JSON (SchemaFor), which the
	// server's grammar enforces.
	FormatJSON Format = "json"
)

// DefaultFormat is the completion format used when Options leave it
// empty. On gemma3:270m the line format degenerates (runs of "|", no
// whole fact line: docs/benchmarks.md), while the grammar keeps a JSON
// reply whole; the JSON form is the default, the lines stay for models
// that follow a pattern (and cost fewer tokens).
const DefaultFormat = FormatJSON

// Generator is the part of llm.Client the completion mode needs.
type Generator interface {
	Generate(ctx context.Context, req llm.GenerateRequest) (llm.ChatResponse, error)
}

// linesEnd ends a reply in the line format; the stop sequences end it at
// END or where the model starts a passage of its own.
const linesEnd = "END"

var linesStop = []string{"\n" + linesEnd, "\nPassage:"}

// parseLines reads facts in the line format, one a line, up to a line END.
// Blank lines are skipped; a line that is not five non-empty fields
// separated by "|" is malformed: counted, not kept. When cut is set (the
// reply hit the output bound) a last line without its newline is dropped
// as cut, not counted as malformed. Each fact's evidence is the first
// sentence that names both its subject and its object (else the first
// that names its subject); the entities are the facts' subjects and
// objects.
func parseLines(text string, sentences []string, cut bool, probs []lineProb) (Reply, int) {
	if cut {
		if i := strings.LastIndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		} else {
			text = ""
		}
	}
	var r Reply
	malformed := 0
	named := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == linesEnd {
			break
		}
		if line == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 5 || !allSet(f) {
			malformed++
			continue
		}
		t := RawTriplet{Subject: f[0], SubjectType: f[1], Predicate: f[2], Object: f[3], ObjectType: f[4]}
		t.Evidence = evidenceFor(sentences, t.Subject, t.Object)
		if n < len(probs) {
			t.Prob, t.ProbMean = probs[n].least, probs[n].mean
		}
		r.Triplets = append(r.Triplets, t)
		for _, en := range []RawEntity{{Name: t.Subject, Type: t.SubjectType}, {Name: t.Object, Type: t.ObjectType}} {
			if k := kg.NormalizeName(en.Name); !named[k] {
				named[k] = true
				r.Entities = append(r.Entities, en)
			}
		}
	}
	return r, malformed
}

// lineProb is what the model's token probabilities say of one line of a
// reply: the least probability of its tokens and their geometric mean.
type lineProb struct{ least, mean float64 }

// lineProbabilities returns, for each line of text (split at "\n"), the
// probabilities of the tokens that write it: a token counts for every line
// it writes a character of (the newline that ends a line is not one).
// tokens are the reply's tokens in order and logprobs their log
// probabilities. It returns nil when the server gave none or the tokens
// do not spell the text (the client may have cut the reply short: the
// tokens then run on past it).
func lineProbabilities(text string, tokens []string, logprobs []float64) []lineProb {
	if len(tokens) == 0 || len(tokens) != len(logprobs) {
		return nil
	}
	joined := strings.Join(tokens, "")
	if !strings.HasPrefix(joined, text) {
		return nil
	}
	n := strings.Count(text, "\n") + 1
	least, sum, count := make([]float64, n), make([]float64, n), make([]int, n)
	line, pos := 0, 0
	for k, t := range tokens {
		if pos >= len(text) {
			break
		}
		end := min(pos+len(t), len(text))
		last := -1
		for ; pos < end; pos++ {
			if text[pos] == '\n' {
				line++
				continue
			}
			if line != last {
				last = line
				if count[line] == 0 || logprobs[k] < least[line] {
					least[line] = logprobs[k]
				}
				sum[line] += logprobs[k]
				count[line]++
			}
		}
	}
	out := make([]lineProb, n)
	for i := range out {
		if count[i] > 0 {
			out[i] = lineProb{least: math.Exp(least[i]), mean: math.Exp(sum[i] / float64(count[i]))}
		}
	}
	return out
}

// allSet trims each field in place and reports whether none is empty.
func allSet(f []string) bool {
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
		if f[i] == "" {
			return false
		}
	}
	return true
}

// evidenceFor returns the first sentence that names both subj and obj,
// else the first that names subj, else "".
func evidenceFor(sentences []string, subj, obj string) string {
	first := ""
	for _, s := range sentences {
		if _, m := locateFolded(s, subj); m == MatchNone {
			continue
		}
		if _, m := locateFolded(s, obj); m != MatchNone {
			return s
		}
		if first == "" {
			first = s
		}
	}
	return first
}

// completionPrompt renders the few-shot pattern for one chunk: the header
// (with the schema's names), the chunk's worked examples, then the chunk.
func (e *Extractor) completionPrompt(c kg.Chunk) (string, error) {
	if e.opts.Mode == ModeSpecialist {
		return e.specialistPrompt(c)
	}
	data := map[string]any{"Format": string(e.opts.Format), "EntityTypes": e.opts.Schema.EntityTypes, "RelationTypes": e.opts.Schema.RelationTypes}
	var b strings.Builder
	h, err := e.prompt.RenderPart("header", data)
	if err != nil {
		return "", err
	}
	b.WriteString(h)
	for _, x := range e.examplesFor(c.ID) {
		facts := x.lines
		if e.opts.Format == FormatJSON {
			facts = replyJSON(x.reply)
		}
		s, err := e.prompt.RenderPart("shot", map[string]any{"Format": string(e.opts.Format), "Passage": x.passage, "Facts": facts})
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	q, err := e.prompt.RenderPart("query", map[string]any{"Format": string(e.opts.Format), "Passage": strings.TrimSpace(c.Text)})
	if err != nil {
		return "", err
	}
	b.WriteString(q)
	return b.String(), nil
}

// generate sends one completion call for a chunk and parses its reply.
func (e *Extractor) generate(ctx context.Context, prompt string, sentences []string, b bounds, temp float64, seed int) (llm.ChatResponse, Reply, error) {
	g, ok := e.llm.(Generator)
	if !ok {
		return llm.ChatResponse{}, Reply{}, fmt.Errorf("completion mode: the LLM client has no Generate")
	}
	req := llm.GenerateRequest{
		Model: e.opts.Model, Prompt: prompt, Raw: true, NumCtx: b.ctx, NumPredict: b.predict,
		Temperature: temp, Seed: seed, Think: e.opts.Think, KeepAlive: e.opts.KeepAlive,
	}
	if e.opts.Format == FormatJSON {
		req.Schema = b.schema
	} else {
		// A line written twice is dropped as a duplicate anyway, and a
		// model that repeats one repeats it until the bound: the reply
		// ends there (llm.DoneRepeat, every line before it whole).
		req.Stop, req.StopAtRepeatedLine = linesStop, true
		// Each fact's line gets the model's probability of it
		// (RawTriplet.Prob), which a build may keep facts by.
		req.Logprobs = true
	}
	resp, err := g.Generate(ctx, req)
	if err != nil {
		return resp, Reply{}, err
	}
	if e.opts.Format == FormatJSON {
		return parseJSON(resp)
	}
	r, malformed := parseLines(resp.Content, sentences, cutReason(resp) != "", lineProbabilities(resp.Content, resp.LogprobTokens, resp.Logprobs))
	r.Malformed = malformed
	return resp, r, nil
}

// cutReason returns why a reply ended before the model finished it:
// "length" when it reached the output bound, llm.DoneIncomplete when the
// server stopped short of its final message; "" for a whole reply.
func cutReason(resp llm.ChatResponse) string {
	switch resp.DoneReason {
	case "length", llm.DoneIncomplete:
		return resp.DoneReason
	}
	return ""
}

// Reply bound sizing (see replyBound). A token is taken as three bytes of
// text, an over-estimate for prose, as numCtx does.
const (
	minReplyJSON   = 128 // tokens: the JSON skeleton and one short fact
	minReplyLines  = 64
	factJSONTokens = 40 // the keys, types, predicate and names of one fact, without its evidence
	entityTokens   = 20 + maxDescription/3
	factLineTokens = 24
)

// replyBound sizes the bound on completion tokens for a chunk from what its
// reply may hold: up to two facts a sentence (at most maxTriplets, as the
// schema allows), each with its evidence sentence in the JSON forms, and
// one entity more than facts (at most maxEntities); at least a floor, at
// most limit (llm.max_output). A bound sized to the passage cuts a reply
// that repeats itself early, and leaves room for one that does not.
func replyBound(f Format, sentences []string, limit int) int {
	facts := min(maxTriplets, 2*len(sentences))
	var need int
	if f == FormatLines {
		need = max(minReplyLines, 16+facts*factLineTokens)
	} else {
		evidence := 0
		for _, s := range sentences {
			evidence += len(s) / 3
		}
		if len(sentences) > 0 {
			evidence /= len(sentences) // the mean sentence, since facts may share one
		}
		need = max(minReplyJSON, 24+facts*(factJSONTokens+evidence)+min(maxEntities, facts+1)*entityTokens)
	}
	return min(need, limit)
}

// checkCompletion checks the options of the completion mode and loads its
// prompt.
func checkCompletion(opts Options) (*prompts.Prompt, error) {
	if opts.Gleanings > 0 {
		return nil, fmt.Errorf("new extractor: gleanings %d: gleaning needs extract.mode chat (a base model continues a pattern, it holds no conversation); set gleanings to 0", opts.Gleanings)
	}
	if opts.Format != FormatLines && opts.Format != FormatJSON {
		return nil, fmt.Errorf("new extractor: completion format %q: must be %s or %s", opts.Format, FormatLines, FormatJSON)
	}
	return prompts.Load("extract_completion.tmpl")
}
