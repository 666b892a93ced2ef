package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// errSkipped is what serve returns when the endpoint it was given turned
// out to serve other models: it is out for good, and the request goes to
// another endpoint without spending an attempt.
var errSkipped = errors.New("endpoint taken out: its models differ from the other endpoints'")

// do runs op on the endpoint the pool picks, and after a transient failure
// again on the next one picked. A failure spends one of c.maxRetries
// attempts only when it leaves no endpoint up: while one is, the request
// just goes there (each failure takes its endpoint out for a backoff, so
// this cannot spin). A request that waits while every endpoint is out
// spends an attempt each time another failure is seen, so that a pool
// with no server left fails about as fast as a single dead server. It
// returns the URL of the endpoint that served (or failed) last.
func (c *Client) do(ctx context.Context, what string, op func(*endpoint) error) (string, error) {
	p := c.pool
	p.mu.Lock()
	seen := p.failures
	p.mu.Unlock()
	where := ""
	if len(p.eps) == 1 {
		where = p.eps[0].url
	}
	var last error
	for attempt := 0; ; {
		e, err := p.acquire(ctx, &seen)
		var down *allDownError
		switch {
		case errors.As(err, &down):
		case err != nil && last != nil:
			return cmp.Or(where, p.urls()), errors.Join(fmt.Errorf("%s: retry cancelled", what), last, err)
		case err != nil:
			return cmp.Or(where, p.urls()), err
		default:
			where = e.url
			if err = c.serve(ctx, e, op); errors.Is(err, errSkipped) {
				continue
			}
			if err == nil || !Transient(err) {
				return where, err
			}
			p.mu.Lock()
			seen = p.failures // this failure is the request's own
			up := p.upLocked()
			p.mu.Unlock()
			if up { // another endpoint takes it: no attempt spent
				last = err
				c.usage.retries.Add(1)
				continue
			}
		}
		last = err
		if attempt >= c.maxRetries {
			return cmp.Or(where, p.urls()), err
		}
		attempt++
		c.usage.retries.Add(1)
	}
}

// serve runs op on e, which acquire gave the request, and releases e. An
// endpoint that failed before lists its models first (once, no retry):
// one that now serves other models under the names the pool checked is
// taken out for good.
func (c *Client) serve(ctx context.Context, e *endpoint, op func(*endpoint) error) error {
	if want, ok := c.pool.needsCheck(e); ok {
		err := c.sameDigests(ctx, e, want)
		switch {
		case errors.Is(err, ErrModelMissing) || errors.Is(err, ErrDigestMismatch):
			c.pool.disable(e, err)
			return errSkipped
		case err != nil:
			c.pool.release(e, err)
			return err
		}
		c.pool.checked(e)
	}
	err := op(e)
	c.pool.release(e, err)
	return err
}

// sameDigests lists e's models and compares them with want.
func (c *Client) sameDigests(ctx context.Context, e *endpoint, want map[string]string) error {
	ctx, cancel := context.WithTimeout(ctx, c.pool.listTimeout)
	defer cancel()
	have, err := listOn(ctx, e)
	if err != nil {
		return err
	}
	got, err := pickDigests(have, slices.Sorted(maps.Keys(want)), e.url)
	if err != nil {
		return err
	}
	var diff []string
	for name, d := range want {
		if got[name] != d {
			diff = append(diff, fmt.Sprintf("%s is %s there, %s on the others", name, short(got[name]), short(d)))
		}
	}
	if len(diff) > 0 {
		slices.Sort(diff)
		return fmt.Errorf("%w: %s: %s", ErrDigestMismatch, e.url, strings.Join(diff, "; "))
	}
	return nil
}

// short is a digest's first 12 characters, as Ollama's CLI shows them.
func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}

// ModelDigests returns the digest of each named model, or an error wrapping
// ErrModelMissing that names every missing model and says how to get it.
// With several endpoints it asks each; one that does not answer is taken
// out until it does (and is checked then), and two that serve different
// digests under one name are an error wrapping ErrDigestMismatch that names
// them, since cache keys hold the digest. The digests are kept: an
// endpoint that comes back after a failure must still serve them.
func (c *Client) ModelDigests(ctx context.Context, names ...string) (map[string]string, error) {
	eps := c.pool.eps
	got := make([]map[string]string, len(eps))
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, e := range eps {
		wg.Go(func() { got[i], errs[i] = c.digestsOn(ctx, e, names) })
	}
	wg.Wait()
	var out map[string]string
	from := ""
	for i, e := range eps {
		switch {
		case errors.Is(errs[i], ErrModelMissing):
			return nil, errs[i]
		case errs[i] != nil && len(eps) > 1:
			c.pool.markDown(e, errs[i])
		case errs[i] != nil:
			return nil, errs[i]
		case out == nil:
			out, from = got[i], e.url
		default:
			if err := mismatch(names, from, out, e.url, got[i]); err != nil {
				return nil, err
			}
		}
	}
	if out == nil {
		return nil, fmt.Errorf("list models on every endpoint (%s): %w", c.pool.urls(), errors.Join(errs...))
	}
	return out, c.pool.expectDigests(out)
}

// mismatch names the models whose digests differ between two endpoints.
func mismatch(names []string, a string, da map[string]string, b string, db map[string]string) error {
	var diff []string
	for _, n := range names {
		if da[n] != db[n] {
			diff = append(diff, fmt.Sprintf("%s is %s on %s but %s on %s", n, short(da[n]), a, short(db[n]), b))
		}
	}
	if len(diff) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s (every endpoint must serve the same model: the reply cache is keyed by its digest)",
		ErrDigestMismatch, strings.Join(diff, "; "))
}

// expectDigests records digests every endpoint must serve from now on.
func (p *pool) expectDigests(ds map[string]string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n, d := range ds {
		if old, ok := p.expect[n]; ok && old != d {
			return fmt.Errorf("%w: %s was %s when first asked, %s now (replaced while the client ran)", ErrDigestMismatch, n, short(old), short(d))
		}
		p.expect[n] = d
	}
	return nil
}

// digestsOn lists the models of one endpoint, retrying transient failures
// with backoff, and returns the digest of each named model.
func (c *Client) digestsOn(ctx context.Context, e *endpoint, names []string) (map[string]string, error) {
	var have map[string]string
	err := c.retry(ctx, "list models", func() error {
		var err error
		have, err = listOn(ctx, e)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list models on %s: %w (is Ollama running? start it with scripts/ollama.sh up)", e.url, err)
	}
	return pickDigests(have, names, e.url)
}

// listOn lists the models of e once: name (both spellings) to digest.
func listOn(ctx context.Context, e *endpoint) (map[string]string, error) {
	list, err := e.api.List(ctx)
	if err != nil {
		return nil, err
	}
	have := map[string]string{}
	for _, m := range list.Models {
		have[m.Name] = m.Digest
		have[m.Model] = m.Digest
	}
	return have, nil
}

// pickDigests returns the digest of each named model ("name" also finds
// "name:latest"), or an error wrapping ErrModelMissing naming the missing.
func pickDigests(have map[string]string, names []string, url string) (map[string]string, error) {
	out := map[string]string{}
	var missing []string
	for _, n := range names {
		d, ok := have[n]
		if !ok && !strings.Contains(n, ":") {
			d, ok = have[n+":latest"]
		}
		if !ok {
			missing = append(missing, n)
			continue
		}
		out[n] = d
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s on %s (create them with scripts/ollama.sh models, or ollama pull NAME)",
			ErrModelMissing, strings.Join(missing, ", "), url)
	}
	return out, nil
}
