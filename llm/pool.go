package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"
)

// Endpoint is one server of a Client's pool.
type Endpoint struct {
	URL string // base URL, http://host:port
	// Slots is how many requests the server works on at once (its
	// OLLAMA_NUM_PARALLEL): the client sends it no more. 0 means no bound,
	// allowed only for a single server.
	Slots int
}

// ErrDigestMismatch means two endpoints of one client serve different
// models under one name: replies cached under one digest would be
// credited to the other.
var ErrDigestMismatch = errors.New("endpoints serve different models under one name")

// EndpointUsage is what one endpoint of a Client served.
type EndpointUsage struct {
	URL              string        `json:"url"`
	Slots            int           `json:"slots"`
	Calls            int64         `json:"calls"`
	PromptTokens     int64         `json:"prompt_tokens"`
	CompletionTokens int64         `json:"completion_tokens"`
	EmbedInputs      int64         `json:"embed_inputs"`
	ServerDuration   time.Duration `json:"server_duration_ns"`
	// Failures counts the requests that failed on this endpoint with a
	// transient error (refused or reset connection, 5xx, timeout); each
	// was retried, on another endpoint when one was up.
	Failures int64 `json:"failures"`
	// Out says why the endpoint is out of the pool now (its last error,
	// or a model digest that differs from the others'); empty when in.
	Out string `json:"out,omitempty"`
}

// epState is where an endpoint stands in the pool.
type epState int

const (
	epUp       epState = iota // takes requests up to its slots
	epDown                    // out after a failure until retryAt; then one trial request
	epTrial                   // one request is trying it again
	epDisabled                // out for good: it serves other models than the rest
)

// endpoint is one server and its share of the client's bookkeeping.
type endpoint struct {
	url   string
	api   *api.Client
	http  *http.Client
	slots int
	usage usageCounters
	fails atomic.Int64 // transient failures, in all

	// Guarded by pool.mu.
	state    epState
	inFlight int
	streak   int       // consecutive failures: the backoff's exponent
	retryAt  time.Time // when a down endpoint may take a trial request
	check    bool      // list its models against the pool's before its next request
	lastErr  error
}

// load is the share of its slots in use; an unbounded endpoint counts
// its requests.
func (e *endpoint) load() float64 {
	if e.slots <= 0 {
		return float64(e.inFlight)
	}
	return float64(e.inFlight) / float64(e.slots)
}

// pool dispatches requests over the endpoints: each to the least-loaded
// endpoint with a free slot; an endpoint that fails is out for a backoff
// that doubles with each failure in a row (base to max), then takes one
// trial request, and is back in when that succeeds.
type pool struct {
	eps         []*endpoint
	base, max   time.Duration
	mu          sync.Mutex
	changed     chan struct{}     // closed and replaced on every change of state
	failures    int64             // transient failures seen, all endpoints
	expect      map[string]string // model name to the digest every endpoint must serve
	next        int               // where the next pick starts, to spread ties
	listTimeout time.Duration
}

func newPool(eps []Endpoint, opts Options) (*pool, error) {
	eps = slices.Clone(eps)
	for i := range eps {
		if !strings.Contains(eps[i].URL, "://") {
			eps[i].URL = "http://" + eps[i].URL // the form OLLAMA_HOST takes
		}
		eps[i].URL = strings.TrimRight(eps[i].URL, "/")
	}
	if len(eps) > 1 {
		seen := map[string]bool{}
		for i, e := range eps {
			if e.Slots < 1 {
				return nil, fmt.Errorf("endpoint %d (%s): slots %d: each of several endpoints needs at least one slot", i, e.URL, e.Slots)
			}
			if seen[e.URL] {
				return nil, fmt.Errorf("endpoint %d: %s is listed twice", i, e.URL)
			}
			seen[e.URL] = true
		}
	}
	p := &pool{base: opts.BaseDelay, max: opts.MaxBackoff, changed: make(chan struct{}), expect: map[string]string{}, listTimeout: min(opts.Timeout, 30*time.Second)}
	for i, e := range eps {
		u, err := url.Parse(e.URL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("endpoint %d: parse ollama host %q: invalid URL (want host:port or http://host:port)", i, e.URL)
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// Keep a connection per slot: the default of 2 idle per host
		// redials every request past the second in flight.
		idle := e.Slots
		if idle <= 0 {
			idle = 64 // unbounded: up to llm.concurrency's largest value
		}
		tr.MaxIdleConnsPerHost = max(idle, 2)
		hc := &http.Client{Timeout: opts.Timeout, Transport: guardedTransport{tr}}
		p.eps = append(p.eps, &endpoint{url: e.URL, api: api.NewClient(u, hc), http: hc, slots: e.Slots})
	}
	return p, nil
}

// broadcast wakes every request waiting for an endpoint; p.mu is held.
func (p *pool) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// allDownError is what acquire returns to a waiting request when every
// endpoint is out and another failure was seen since the request last
// counted one: the request spends an attempt of its retry budget, so that
// a pool with no server left fails as fast as one server did.
type allDownError struct{ last error }

func (e *allDownError) Error() string {
	return "every endpoint is out: " + strings.ReplaceAll(e.last.Error(), "\n", "; ")
}
func (e *allDownError) Unwrap() error { return e.last }

// acquire returns the endpoint the next request goes to, waiting while
// every endpoint is busy or out. seen is the count of failures the
// request has accounted for.
func (p *pool) acquire(ctx context.Context, seen *int64) (*endpoint, error) {
	for {
		p.mu.Lock()
		now := time.Now()
		if e := p.pickLocked(now); e != nil {
			e.inFlight++
			if e.state == epDown {
				e.state = epTrial
			}
			p.mu.Unlock()
			return e, nil
		}
		up, due, disabled := p.standLocked()
		if disabled == len(p.eps) {
			err := p.outErrorLocked()
			p.mu.Unlock()
			return nil, err
		}
		if !up && p.failures > *seen {
			*seen = p.failures
			err := &allDownError{last: p.outErrorLocked()}
			p.mu.Unlock()
			return nil, err
		}
		wake := p.changed
		p.mu.Unlock()
		if err := wait(ctx, wake, due); err != nil {
			return nil, err
		}
	}
}

// wait returns when wake is closed, when due comes (never, when zero),
// or with ctx's error.
func wait(ctx context.Context, wake <-chan struct{}, due time.Time) error {
	var timer <-chan time.Time
	if !due.IsZero() {
		t := time.NewTimer(time.Until(due))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
	case <-timer:
	}
	return nil
}

// pickLocked returns the least-loaded endpoint that can take a request
// now: an up one with a free slot, or a down one whose backoff is over (its
// trial). Ties go round the endpoints.
func (p *pool) pickLocked(now time.Time) *endpoint {
	var best *endpoint
	n := len(p.eps)
	for k := range n {
		e := p.eps[(p.next+k)%n]
		switch {
		case e.state == epUp && (e.slots <= 0 || e.inFlight < e.slots):
		case e.state == epDown && e.inFlight == 0 && !now.Before(e.retryAt):
		default:
			continue
		}
		if best == nil || e.load() < best.load() {
			best = e
		}
	}
	if best != nil {
		p.next = (p.next + 1) % n
	}
	return best
}

// upLocked reports whether any endpoint is up.
func (p *pool) upLocked() bool {
	for _, e := range p.eps {
		if e.state == epUp {
			return true
		}
	}
	return false
}

// standLocked says whether any endpoint is up, the soonest time a down
// one may be tried (zero when none is down), and how many are disabled.
func (p *pool) standLocked() (up bool, due time.Time, disabled int) {
	for _, e := range p.eps {
		switch e.state {
		case epUp, epTrial:
			up = up || e.state == epUp
		case epDown:
			if due.IsZero() || e.retryAt.Before(due) {
				due = e.retryAt
			}
		case epDisabled:
			disabled++
		}
	}
	return up, due, disabled
}

// outErrorLocked names every endpoint that is out and why.
func (p *pool) outErrorLocked() error {
	var errs []error
	for _, e := range p.eps {
		if e.state == epDown || e.state == epDisabled {
			errs = append(errs, fmt.Errorf("%s: %w", e.url, e.lastErr))
		}
	}
	return errors.Join(errs...)
}

// release ends a request on e. A transient failure takes e out for its
// backoff (a failure of a request sent before e went out does not
// lengthen it); a trial that succeeds brings e back.
func (p *pool) release(e *endpoint, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.inFlight--
	switch {
	case err != nil && Transient(err):
		e.fails.Add(1)
		p.failures++
		e.lastErr = err
		e.check = true // it may come back as another server
		if e.state == epUp || e.state == epTrial {
			e.state = epDown
			e.retryAt = time.Now().Add(p.backoff(e.streak))
			e.streak++
		}
	case e.state == epTrial:
		e.state, e.streak = epUp, 0
	}
	p.broadcast()
}

// backoff is how long an endpoint stays out after streak failures in a
// row before this one: base doubling each time, at most max.
func (p *pool) backoff(streak int) time.Duration {
	d := p.base
	for range streak {
		if d >= p.max/2 {
			return p.max
		}
		d *= 2
	}
	return min(d, p.max)
}

// disable takes e out for good.
func (p *pool) disable(e *endpoint, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.inFlight--
	e.state, e.lastErr = epDisabled, err
	p.broadcast()
}

// markDown takes e out after it failed to answer outside a request (the
// first model listing).
func (p *pool) markDown(e *endpoint, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.state == epUp {
		e.state, e.retryAt, e.streak = epDown, time.Now().Add(p.backoff(0)), 1
	}
	e.lastErr, e.check = err, true
	p.broadcast()
}

// needsCheck reports whether e must list its models before it serves,
// and what it must list.
func (p *pool) needsCheck(e *endpoint) (map[string]string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !e.check || len(p.expect) == 0 {
		return nil, false
	}
	want := make(map[string]string, len(p.expect))
	for k, v := range p.expect {
		want[k] = v
	}
	return want, true
}

// checked records that e serves the models the pool expects.
func (p *pool) checked(e *endpoint) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.check = false
}

// usage is each endpoint's account, in the order they were given.
func (p *pool) usage() []EndpointUsage {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]EndpointUsage, len(p.eps))
	for i, e := range p.eps {
		out[i] = EndpointUsage{
			URL: e.url, Slots: e.slots,
			Calls: e.usage.calls.Load(), PromptTokens: e.usage.prompt.Load(), CompletionTokens: e.usage.completion.Load(),
			EmbedInputs: e.usage.embedInputs.Load(), ServerDuration: time.Duration(e.usage.serverNS.Load()),
			Failures: e.fails.Load(),
		}
		if (e.state == epDown || e.state == epDisabled) && e.lastErr != nil {
			out[i].Out = e.lastErr.Error()
		}
	}
	return out
}

// urls names the endpoints, for errors that cannot name one.
func (p *pool) urls() string {
	names := make([]string, len(p.eps))
	for i, e := range p.eps {
		names[i] = e.url
	}
	return strings.Join(names, ", ")
}
