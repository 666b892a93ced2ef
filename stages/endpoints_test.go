package stages

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"
)

// endpointsCorpus writes n one-sentence documents (one chunk each) into
// dir, once, and a pipeline over them that lists the given endpoints, two
// slots each.
func endpointsCorpus(t *testing.T, dir string, n int, urls ...string) *pipelines.Pipeline {
	t.Helper()
	for i := range n {
		name := filepath.Join(dir, "docs", fmt.Sprintf("%02d.md", i))
		if _, err := os.Stat(name); err == nil {
			continue // the same files, the same times: the same sources table
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, fmt.Appendf(nil, "Plant %d assembles the model %d bike.\n", i, i), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	raw := "name: endpoints\nsources:\n  - {name: docs, paths: [\"docs/*\"]}\n" +
		"resolve: {embeddings: false}\nneo4j: {mode: never}\nllm:\n  chat_model: m\n  endpoints:\n"
	for _, u := range urls {
		raw += fmt.Sprintf("    - {url: %q, slots: 2}\n", u)
	}
	pf := filepath.Join(dir, fmt.Sprintf("p%d.yaml", len(urls)))
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// dyingServer is fakeOllama's server (a test double) that resets the
// connection of every chat after its first `after`: a server killed in the
// middle of a build.
func dyingServer(t *testing.T, after int32) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var chats atomic.Int32
	ok := fakeOllamaHandler(&chats, false)
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" && seen.Add(1) > after {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				_ = conn.(*net.TCPConn).SetLinger(0)
				_ = conn.Close()
			}
			return
		}
		ok.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &chats
}

func endpointsClient(t *testing.T, p *pipelines.Pipeline) *llm.Client {
	t.Helper()
	var eps []llm.Endpoint
	for _, e := range p.LLM.Endpoints {
		eps = append(eps, llm.Endpoint{URL: e.URL, Slots: e.Slots})
	}
	c, err := llm.New(llm.Options{Endpoints: eps, BaseDelay: time.Millisecond, MaxBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestRunner_AnEndpointThatDiesMidBuildLosesNoChunk builds 16 chunks over
// two fake endpoints, one of which dies after three chats, and checks that
// every chunk is extracted, that the bundle equals a build's on one
// server, and that the report accounts for each endpoint.
func TestRunner_AnEndpointThatDiesMidBuildLosesNoChunk(t *testing.T) {
	var oneChats atomic.Int32
	one := httptest.NewServer(fakeOllamaHandler(&oneChats, false))
	t.Cleanup(one.Close)
	dir := t.TempDir()
	ref := endpointsCorpus(t, dir, 16, one.URL)
	refRep, err := (&Runner{LLM: endpointsClient(t, ref), CacheDir: t.TempDir(), OutDir: t.TempDir()}).Run(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}

	var liveChats atomic.Int32
	live := httptest.NewServer(fakeOllamaHandler(&liveChats, false))
	t.Cleanup(live.Close)
	dying, dyingChats := dyingServer(t, 3)
	p := endpointsCorpus(t, dir, 16, live.URL, dying.URL)
	if p.LLM.Concurrency != 4 {
		t.Fatalf("llm.concurrency = %d, want 4: the sum of the endpoints' slots", p.LLM.Concurrency)
	}
	out := t.TempDir()
	rep, err := (&Runner{LLM: endpointsClient(t, p), CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusOK || rep.Chunks != 16 || rep.Extract.Calls != 16 || rep.Triplets != refRep.Triplets {
		t.Errorf("status %s, %d chunks, %d extraction calls, %d triplets; want ok, 16, 16 and %d (one server's)",
			rep.Status, rep.Chunks, rep.Extract.Calls, rep.Triplets, refRep.Triplets)
	}
	if d := bundle.Compare(manifest(t, refRep.Bundle), manifest(t, rep.Bundle)); len(d) > 0 {
		t.Errorf("the bundle differs from the one-server build's: %+v", d)
	}
	ep := rep.Endpoints
	if len(ep) != 2 || ep[0].URL != live.URL || ep[1].URL != dying.URL {
		t.Fatalf("llm_endpoints = %+v, want the two endpoints in order", ep)
	}
	if ep[0].Calls != int64(liveChats.Load()) || ep[1].Calls != int64(dyingChats.Load()) || ep[1].Calls != 3 ||
		ep[0].Calls+ep[1].Calls != rep.LLM.Calls || ep[1].Failures == 0 || ep[0].Failures != 0 {
		t.Errorf("llm_endpoints = %+v; servers answered %d and %d chats, the client counted %d calls",
			ep, liveChats.Load(), dyingChats.Load(), rep.LLM.Calls)
	}
	if ep[0].BusyShare <= 0 || ep[0].CompletionTokens != 5*ep[0].Calls {
		t.Errorf("live endpoint: busy share %v, %d completion tokens for %d calls", ep[0].BusyShare, ep[0].CompletionTokens, ep[0].Calls)
	}
	raw, err := os.ReadFile(filepath.Join(out, "reports", rep.BuildID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range validateReport(t, loadSchema(t), raw) {
		t.Error(e)
	}
}

func manifest(t *testing.T, dir string) bundle.Manifest {
	t.Helper()
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }()
	return b.Manifest
}
