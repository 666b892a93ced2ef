package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// GenerateRequest is one completion call: the prompt is continued as it is
// (Raw) or through the model's template. Base models, which have no chat
// template, are driven this way with a few-shot pattern.
type GenerateRequest struct {
	Model       string
	Prompt      string
	Raw         bool            // send the prompt without the model's template
	Schema      json.RawMessage // JSON schema the continuation must follow; nil for free text
	Stop        []string        // sequences that end the continuation
	NumCtx      int             // context window; 0 lets the server choose
	NumPredict  int             // bound on completion tokens; 0 means 1024
	Temperature float64
	Seed        int
	Think       bool          // let a thinking model think first; false sends think: false
	KeepAlive   time.Duration // 0 means the client's Options.KeepAlive
	// StopAtRepeatedLine ends the continuation where it starts a line it
	// has already written whole: a small model at temperature 0 that
	// repeats a line repeats it until the bound. The reply then holds the
	// lines before the repeat and ends with DoneRepeat. The server still
	// generates to its bound (a request is never closed mid-reply: see
	// Generate), so such a call costs as much as one without the option,
	// and is counted with the server's tokens.
	StopAtRepeatedLine bool
	// Logprobs asks the server for the log probability of each token of
	// the reply (ChatResponse.Logprobs), as the model gave it before any
	// schema's grammar masked the choice.
	Logprobs bool
}

// DoneRepeat is the DoneReason of a reply the client ended at a repeated
// line (GenerateRequest.StopAtRepeatedLine): every line it holds is whole.
const DoneRepeat = "repeat"

// repeatWatch follows a reply, piece by piece, line by line: add returns false at
// the first whole line (ended by a newline, not blank) that an earlier one
// already was; kept is the text before that line.
type repeatWatch struct {
	text  strings.Builder
	start int // where the line being written starts
	seen  map[string]bool
	kept  int
}

func (w *repeatWatch) add(piece string) bool {
	w.text.WriteString(piece)
	s := w.text.String()
	for {
		i := strings.IndexByte(s[w.start:], '\n')
		if i < 0 {
			w.kept = len(s)
			return true
		}
		line := strings.TrimSpace(s[w.start : w.start+i])
		if line != "" && w.seen[line] {
			w.kept = w.start
			return false
		}
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		w.seen[line] = line != ""
		w.start += i + 1
	}
}

// Generate sends one completion request and returns the whole continuation,
// with the same retries, DoneReason values and token accounting as Chat.
func (c *Client) Generate(ctx context.Context, req GenerateRequest) (ChatResponse, error) {
	opts := c.options(req.Model, req.Temperature, req.Seed, req.NumPredict, req.NumCtx)
	if len(req.Stop) > 0 {
		opts["stop"] = req.Stop
	}
	// Never streamed: Ollama (0.17, its issue #17131) can lose a runner's
	// only slot to a streamed request the client closes mid-reply (a
	// cancelled build, a timeout), and every later call to that model
	// then waits forever; a request that is not streamed the server reads
	// to its end whatever the client does.
	stream := false
	areq := &api.GenerateRequest{
		Model: req.Model, Prompt: req.Prompt, Raw: req.Raw, Format: req.Schema, Stream: &stream,
		KeepAlive: c.keepAliveFor(req.KeepAlive), Options: opts, Think: &api.ThinkValue{Value: req.Think},
		Logprobs: req.Logprobs,
	}
	var out ChatResponse
	host, err := c.do(ctx, "generate "+req.Model, func(e *endpoint) error {
		var b strings.Builder
		var m api.Metrics
		var lps []float64
		var toks []string
		out = ChatResponse{}
		done, parts := false, 0
		gctx, guard := watch(ctx)
		err := e.api.Generate(gctx, areq, func(r api.GenerateResponse) error {
			parts++
			b.WriteString(r.Response)
			for _, lp := range r.Logprobs {
				lps = append(lps, lp.Logprob)
				toks = append(toks, lp.Token)
			}
			if r.Done {
				done, m = true, r.Metrics
				final(&out, r.DoneReason, m)
			}
			return nil
		})
		out.Content, out.Logprobs, out.LogprobTokens = b.String(), lps, toks
		if req.StopAtRepeatedLine && err == nil && done {
			var rw repeatWatch
			if !rw.add(out.Content) {
				// The server's counts are of all it generated, the
				// lines after the repeat included: the tokens it spent.
				out.Content, out.DoneReason = out.Content[:rw.kept], DoneRepeat
				c.count(e, out, m)
				for _, u := range []*usageCounters{&c.usage, &e.usage} {
					u.repeatStopped.Add(1)
				}
				return nil
			}
		}
		if err := guard.check(ctx, c.timeout); err != nil {
			return err // before the api package's error, which may quote a cut line
		}
		if err := replyEnd(err, parts, done, &out); err != nil {
			return err
		}
		c.count(e, out, m)
		return nil
	})
	if err != nil {
		return ChatResponse{}, fmt.Errorf("generate with %s on %s: %w", req.Model, host, err)
	}
	return out, nil
}

// replyEnd classifies how a streamed reply ended: a connection that
// delivered nothing is worth retrying; a server that answered but stopped
// short of its final message (seen with structured outputs when generation
// stalls) would stall again, so the caller gets what came, marked
// DoneIncomplete.
func replyEnd(err error, parts int, done bool, out *ChatResponse) error {
	switch {
	case err != nil:
	case parts == 0:
		// The api package ends a cut stream without an error.
		err = fmt.Errorf("reply ended before any message: %w", io.ErrUnexpectedEOF)
	case !done:
		out.DoneReason = DoneIncomplete
	}
	return err
}

// options are the sampling options Chat and Generate send for model;
// numPredict 0 means 1024; num_ctx is the window the model gets for a call
// that needs numCtx (Client.numCtx: 0 there lets the server choose);
// num_thread is the client's (Options.NumThread).
func (c *Client) options(model string, temperature float64, seed, numPredict, numCtx int) map[string]any {
	if numPredict == 0 {
		numPredict = 1024
	}
	opts := map[string]any{"temperature": temperature, "seed": seed, "num_predict": numPredict}
	if numCtx = c.numCtx(model, numCtx); numCtx > 0 {
		opts["num_ctx"] = numCtx
	}
	if c.numThread > 0 {
		opts["num_thread"] = c.numThread
	}
	return opts
}

// numCtx is the num_ctx a call to model asks for when it needs n (0: the
// server's default): at least the client's minimum, and never less than
// it asked of model before. Ollama reloads a model's runner whenever a
// call's num_ctx differs from the loaded one's, and 0.17's scheduler can
// then stall every call that must load a model for as long as the keep
// alive (a request arriving with the old window while the runner waits
// to unload sets it back to 30 minutes: ollama/ollama#17408): calls that
// alternate between windows, as the extractor's chunks of mixed sizes,
// a query agent or a second process on the same server do, both pay the
// reloads and risk the stall. So a model's window only grows, in the few
// steps its largest calls need.
func (c *Client) numCtx(model string, n int) int {
	if n <= 0 && c.minCtx == 0 {
		return 0
	}
	n = max(n, c.minCtx)
	c.ctxMu.Lock()
	defer c.ctxMu.Unlock()
	if prev := c.ctxs[model]; prev > n {
		return prev
	}
	c.ctxs[model] = n
	return n
}

// final records a reply's last message: why it ended and its token counts.
func final(out *ChatResponse, reason string, m api.Metrics) {
	out.DoneReason = reason
	out.PromptTokens = m.PromptEvalCount
	out.CompletionTokens = m.EvalCount
	out.PromptDuration = m.PromptEvalDuration
	out.EvalDuration = m.EvalDuration
}

func (c *Client) keepAliveFor(d time.Duration) *api.Duration {
	if d != 0 {
		return &api.Duration{Duration: d}
	}
	return c.keepAlive
}

// count adds a reply to the client's and its endpoint's usage: its
// tokens and the server's time on it.
func (c *Client) count(e *endpoint, out ChatResponse, m api.Metrics) {
	for _, u := range []*usageCounters{&c.usage, &e.usage} {
		u.calls.Add(1)
		u.prompt.Add(int64(out.PromptTokens))
		u.completion.Add(int64(out.CompletionTokens))
		u.evalNS.Add(int64(m.EvalDuration))
		u.serverNS.Add(int64(m.TotalDuration))
	}
}

// ModelInfo is what the server says of a model: whether it has a prompt
// template (a model without one is a base model, driven by completion) and
// what it can do.
type ModelInfo struct {
	Name         string
	HasTemplate  bool
	Capabilities []string // "completion", "tools", "thinking", "embedding", ...
	ContextLen   int      // the model's trained context length, 0 when unknown
	// Specialist is the GGUF key kgforge.prompt of a model kgforge trained
	// (scripts/merge_adapter.py writes it): the name of the prompt it was
	// trained on; "" for every other model.
	Specialist string
}

// Can reports whether the model has the capability.
func (m ModelInfo) Can(capability string) bool {
	for _, c := range m.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}

// Base reports whether the model is a base model: no template, or a
// template that only passes the prompt through.
func (m ModelInfo) Base() bool { return !m.HasTemplate }

// Info asks the server about one model; ErrModelMissing when it has none
// of that name.
func (c *Client) Info(ctx context.Context, model string) (ModelInfo, error) {
	var r *api.ShowResponse
	host, err := c.do(ctx, "show "+model, func(e *endpoint) error {
		var err error
		r, err = e.api.Show(ctx, &api.ShowRequest{Model: model})
		return err
	})
	if err != nil {
		if isNotFound(err) {
			return ModelInfo{}, fmt.Errorf("%s on %s: %w", model, host, ErrModelMissing)
		}
		return ModelInfo{}, fmt.Errorf("show %s on %s: %w", model, host, err)
	}
	info := ModelInfo{Name: model, HasTemplate: !passThrough(r.Template)}
	for _, cp := range r.Capabilities {
		info.Capabilities = append(info.Capabilities, string(cp))
	}
	for k, v := range r.ModelInfo {
		if k == "kgforge.prompt" {
			info.Specialist, _ = v.(string)
		}
		if strings.HasSuffix(k, ".context_length") {
			if f, ok := v.(float64); ok {
				info.ContextLen = int(f)
			}
		}
	}
	return info, nil
}

// passThrough reports whether a template adds nothing to the prompt:
// empty, or Ollama's default "{{ .Prompt }}".
func passThrough(tmpl string) bool {
	t := strings.Join(strings.Fields(tmpl), "")
	return t == "" || t == "{{.Prompt}}"
}

func isNotFound(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == http.StatusNotFound
}
