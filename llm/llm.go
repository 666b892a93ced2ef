package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"
)

// ErrModelMissing means a model that the pipeline names is not on the server.
var ErrModelMissing = errors.New("model not found on the Ollama server")

// DefaultHost is the Ollama address used when OLLAMA_HOST is not set.
const DefaultHost = "http://127.0.0.1:11434"

// Options configure a Client.
type Options struct {
	Host       string        // Ollama base URL; empty means OLLAMA_HOST, then DefaultHost
	Timeout    time.Duration // per request; 0 means 5 minutes
	MaxRetries int           // retries after the first attempt; 0 means 4, negative means none
	BaseDelay  time.Duration // first backoff delay; 0 means 500ms
	KeepAlive  time.Duration // how long the server keeps a model loaded; 0 means 30 minutes
	// Endpoints are several servers serving the same models; each request
	// goes to the least-loaded one (pool.go). Empty means Host alone, with
	// no bound on its parallel requests.
	Endpoints []Endpoint
	// MaxBackoff bounds how long a failing endpoint stays out before it is
	// tried again; 0 means 30 seconds.
	MaxBackoff time.Duration
	// NumThread is the num_thread option sent with every chat, completion
	// and embedding: the threads the server's runner computes with. 0 means
	// KGFORGE_NUM_THREAD, then the server's default (one per core);
	// negative means the server's default. On a machine whose cores other
	// processes share, 1 is several times faster than the default: ggml's
	// threads busy-wait for each other (docs/benchmarks.md, "Ollama's
	// threads spin"). A runner loaded with another value is reloaded.
	NumThread int
	// MinContext is the smallest num_ctx sent with a chat or completion;
	// 0 means DefaultMinContext, negative means none. The client also
	// never sends a model a smaller num_ctx than it sent it before (see
	// Client.numCtx).
	MinContext int
}

// Client talks to one Ollama server, or to several (Options.Endpoints).
type Client struct {
	pool       *pool
	maxRetries int
	baseDelay  time.Duration
	keepAlive  *api.Duration
	numThread  int           // > 0: sent as num_thread
	timeout    time.Duration // of one call, Options.Timeout
	usage      usageCounters
	minCtx     int            // Options.MinContext
	ctxMu      sync.Mutex     // guards ctxs
	ctxs       map[string]int // model → the largest num_ctx sent it
}

// DefaultMinContext is the smallest context window the client asks for
// (Options.MinContext): the query agent's window, so that the agent and
// the extractor, which asks 2,048 or 4,096 for most chunks, load one
// runner of a model, not one each in turn.
const DefaultMinContext = 8192

// Usage is what a Client has spent so far.
type Usage struct {
	Calls            int64         `json:"calls"`
	Retries          int64         `json:"retries"`
	PromptTokens     int64         `json:"prompt_tokens"`
	CompletionTokens int64         `json:"completion_tokens"`
	EvalDuration     time.Duration `json:"eval_duration_ns"`
	// ServerDuration sums the time the server spent on each chat, as it
	// reports it (loading, prompt, generation): against the wall time it
	// tells how busy the pipeline kept the server.
	ServerDuration time.Duration `json:"server_duration_ns"`
	EmbedInputs    int64         `json:"embed_inputs"`
	// RepeatStopped counts the replies the client ended at a repeated line
	// (GenerateRequest.StopAtRepeatedLine). Their tokens and server time
	// are counted as the server reports them: all it generated, the lines
	// after the repeat included.
	RepeatStopped int64 `json:"repeat_stopped,omitempty"`
}

// TokensPerSecond returns the completion throughput of the server.
func (u Usage) TokensPerSecond() float64 {
	if u.EvalDuration <= 0 {
		return 0
	}
	return float64(u.CompletionTokens) / u.EvalDuration.Seconds()
}

type usageCounters struct {
	calls, retries, prompt, completion, evalNS, serverNS, embedInputs, repeatStopped atomic.Int64
}

// HostFromEnv returns the Ollama base URL from OLLAMA_HOST, accepting the
// forms Ollama itself accepts ("host:port", "http://host:port").
func HostFromEnv() string {
	h := strings.TrimSpace(os.Getenv("OLLAMA_HOST"))
	if h == "" {
		return DefaultHost
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	return strings.TrimRight(h, "/")
}

// NumThreadFromEnv returns KGFORGE_NUM_THREAD (Options.NumThread), 0 when
// it is unset, and an error naming the variable when it is not a number of
// threads.
func NumThreadFromEnv() (int, error) {
	v := strings.TrimSpace(os.Getenv("KGFORGE_NUM_THREAD"))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("KGFORGE_NUM_THREAD=%q: want a number of threads, 1 or more", v)
	}
	return n, nil
}

// New returns a client for the server at opts.Host.
func New(opts Options) (*Client, error) {
	eps := opts.Endpoints
	if len(eps) == 0 {
		host := opts.Host
		if host == "" {
			host = HostFromEnv()
		}
		u, err := url.Parse(host)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("parse ollama host %q: invalid URL (set OLLAMA_HOST to host:port or http://host:port)", host)
		}
		eps = []Endpoint{{URL: host}}
	} else if opts.Host != "" {
		return nil, errors.New("llm options: set Host or Endpoints, not both")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 4
	}
	if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.BaseDelay == 0 {
		opts.BaseDelay = 500 * time.Millisecond
	}
	if opts.KeepAlive == 0 {
		opts.KeepAlive = 30 * time.Minute
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.NumThread == 0 {
		n, err := NumThreadFromEnv()
		if err != nil {
			return nil, err
		}
		opts.NumThread = n
	}
	minCtx := opts.MinContext
	switch {
	case minCtx == 0:
		minCtx = DefaultMinContext
	case minCtx < 0:
		minCtx = 0
	}
	p, err := newPool(eps, opts)
	if err != nil {
		return nil, err
	}
	return &Client{
		pool:       p,
		maxRetries: opts.MaxRetries,
		baseDelay:  opts.BaseDelay,
		keepAlive:  &api.Duration{Duration: opts.KeepAlive},
		numThread:  max(opts.NumThread, 0),
		timeout:    opts.Timeout,
		minCtx:     minCtx,
		ctxs:       map[string]int{},
	}, nil
}

// Close releases the client's idle connections.
func (c *Client) Close() {
	for _, e := range c.pool.eps {
		e.http.CloseIdleConnections()
	}
}

// Host returns the server's base URL: the first endpoint's, when there
// are several.
func (c *Client) Host() string { return c.pool.eps[0].url }

// Endpoints returns what each endpoint served so far, in the order the
// client was given them (one entry for a single server).
func (c *Client) Endpoints() []EndpointUsage { return c.pool.usage() }

// Usage returns a snapshot of what the client has spent.
func (c *Client) Usage() Usage {
	return Usage{
		Calls:            c.usage.calls.Load(),
		Retries:          c.usage.retries.Load(),
		PromptTokens:     c.usage.prompt.Load(),
		CompletionTokens: c.usage.completion.Load(),
		EvalDuration:     time.Duration(c.usage.evalNS.Load()),
		ServerDuration:   time.Duration(c.usage.serverNS.Load()),
		EmbedInputs:      c.usage.embedInputs.Load(),
		RepeatStopped:    c.usage.repeatStopped.Load(),
	}
}

// Message is one turn of a conversation.
type Message struct {
	Role      string     `json:"role"` // system, user, assistant or tool
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"` // an assistant turn's native tool calls
	ToolName  string     `json:"tool_name,omitempty"`  // a tool turn: which tool's result this is
}

// ChatRequest is one structured-output chat call.
type ChatRequest struct {
	Model       string
	Messages    []Message
	Schema      json.RawMessage // JSON schema the reply must follow; nil for free text
	NumCtx      int             // context window; 0 lets the server choose
	NumPredict  int             // bound on completion tokens; 0 means 1024
	Temperature float64
	Seed        int
	KeepAlive   time.Duration // how long the server keeps the model loaded after this call; 0 means the client's Options.KeepAlive
	// Think lets a thinking model think before it answers. Ollama turns
	// thinking on when it is not sent, and applies the schema only after
	// the thinking, so false is always sent as think: false.
	Think bool
	// Tools offers native tool calling (models with the "tools"
	// capability); the reply's ToolCalls hold the calls.
	Tools []ToolSpec
}

// DoneIncomplete is the DoneReason of a reply the server ended without its
// final message; its content is usually cut JSON.
const DoneIncomplete = "incomplete"

// ChatResponse is the reply to a ChatRequest.
type ChatResponse struct {
	Content          string
	DoneReason       string // "stop", or "length" when NumPredict cut the reply
	PromptTokens     int
	CompletionTokens int
	// PromptDuration and EvalDuration are the server's time reading the
	// prompt and writing the reply, as it reports them.
	PromptDuration, EvalDuration time.Duration
	ToolCalls                    []ToolCall // native tool calls, when the request offered Tools
	// Logprobs are the log probabilities of the reply's tokens, when the
	// request asked for them (GenerateRequest.Logprobs) and the server
	// gave them; nil otherwise. LogprobTokens are the tokens' texts, one
	// for each of Logprobs.
	Logprobs      []float64
	LogprobTokens []string
}

// Chat sends one chat request and returns the whole reply.
func (c *Client) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	msgs, err := apiMessages(req.Messages)
	if err != nil {
		return ChatResponse{}, err
	}
	tools, err := apiTools(req.Tools)
	if err != nil {
		return ChatResponse{}, err
	}
	opts := c.options(req.Model, req.Temperature, req.Seed, req.NumPredict, req.NumCtx)
	stream := false
	areq := &api.ChatRequest{
		Model: req.Model, Messages: msgs, Stream: &stream, Format: req.Schema, Tools: tools,
		KeepAlive: c.keepAliveFor(req.KeepAlive), Options: opts, Think: &api.ThinkValue{Value: req.Think},
	}
	var out ChatResponse
	host, err := c.do(ctx, "chat "+req.Model, func(e *endpoint) error {
		var b strings.Builder
		var m api.Metrics
		out = ChatResponse{}
		done, parts := false, 0
		gctx, guard := watch(ctx)
		err := e.api.Chat(gctx, areq, func(r api.ChatResponse) error {
			parts++
			b.WriteString(r.Message.Content)
			for _, tc := range r.Message.ToolCalls {
				out.ToolCalls = append(out.ToolCalls, toolCallOf(tc))
			}
			if r.Done {
				done, m = true, r.Metrics
				final(&out, r.DoneReason, m)
			}
			return nil
		})
		out.Content = b.String()
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
		return ChatResponse{}, fmt.Errorf("chat with %s on %s: %w", req.Model, host, err)
	}
	return out, nil
}

// Embed returns one vector per input, in order, sending batches of at most
// batch inputs (0 means 64).
func (c *Client) Embed(ctx context.Context, model string, inputs []string, batch int) ([][]float32, error) {
	if batch <= 0 {
		batch = 64
	}
	out := make([][]float32, 0, len(inputs))
	for start := 0; start < len(inputs); start += batch {
		end := min(start+batch, len(inputs))
		truncate := true
		req := &api.EmbedRequest{Model: model, Input: inputs[start:end], KeepAlive: c.keepAlive, Truncate: &truncate}
		if c.numThread > 0 {
			req.Options = map[string]any{"num_thread": c.numThread}
		}
		var resp *api.EmbedResponse
		host, err := c.do(ctx, "embed "+model, func(e *endpoint) error {
			var err error
			if resp, err = e.api.Embed(ctx, req); err == nil {
				for _, u := range []*usageCounters{&c.usage, &e.usage} {
					u.calls.Add(1)
					u.embedInputs.Add(int64(end - start))
				}
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("embed %d inputs with %s on %s: %w", end-start, model, host, err)
		}
		if len(resp.Embeddings) != end-start {
			return nil, fmt.Errorf("embed with %s on %s: got %d vectors for %d inputs", model, host, len(resp.Embeddings), end-start)
		}
		out = append(out, resp.Embeddings...)
	}
	return out, nil
}

// retry runs op, retrying transient failures with exponential backoff and
// full jitter, up to c.maxRetries times.
func (c *Client) retry(ctx context.Context, what string, op func() error) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = op()
		if err == nil || !Transient(err) || attempt >= c.maxRetries {
			return err
		}
		c.usage.retries.Add(1)
		backoff := c.baseDelay << attempt
		sleep := backoff/2 + rand.N(backoff/2+1)
		t := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(fmt.Errorf("%s: retry cancelled", what), err, ctx.Err())
		case <-t.C:
		}
	}
}

// Transient reports whether err is worth retrying: a 5xx or 429 from the
// server (503 is Ollama's "queue full"), a reset or refused connection, a
// connection closed under the request (a server that reset it while the
// request was still being written: "use of closed network connection"; or
// a kept-alive connection the server closed as the request went out, which
// Go's HTTP client does not retry for a POST), an unexpected EOF or a
// timeout.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var se api.StatusError
	if errors.As(err, &se) {
		return se.StatusCode >= 500 || se.StatusCode == http.StatusTooManyRequests
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	if strings.Contains(err.Error(), errServerClosedIdle) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errServerClosedIdle is the message of net/http's unexported error for a
// request sent on a kept-alive connection the server had just closed.
const errServerClosedIdle = "http: server closed idle connection"

// The models kgforge's example pipeline and tests use; scripts/ollama.sh
// creates them from PyPI packages.
const (
	ChatModelForTests = "gemma3:270m"
	// ExtractModelForTests is kgforge's own extraction model, which
	// scripts/ollama.sh builds from the base model and the committed
	// adapter (models/kgforge-extract).
	ExtractModelForTests = "kgforge-extract"
	EmbedModelForTests   = "all-minilm:l6-v2"
)
