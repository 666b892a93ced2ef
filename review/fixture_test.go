package review_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
	"kgforge/review"
)

// The fixture's source text; the chunk starts at byte chunkStart of it.
const (
	chunkStart = 1000
	chunkText  = "Acme Corp supplies the Porto plant. The Porto Plant runs two lines. " +
		"Goods go to the Lisbon warehouse; the Lisbon depot ships them. " +
		"<script>alert(1)</script> was found in a form. ACME Inc. and Beta Ltd and Beta Limited signed."
)

// ev returns the evidence reference of the first occurrence of s in the
// fixture's chunk, in source offsets.
func ev(s string) string {
	i := strings.Index(chunkText, s)
	if i < 0 {
		panic("not in the chunk: " + s)
	}
	return fmt.Sprintf("c1:%d-%d", chunkStart+i, chunkStart+i+len(s))
}

func concept(id, name, typ string, aliases ...string) kg.Node {
	return kg.Node{ID: id, Name: name, Kind: kg.NodeConcept, Labels: []string{"Entity", typ}, Aliases: aliases, Properties: map[string]string{"type": typ}}
}

func merge(cluster, member, canonical, typ, rule string, score float64, evidence ...string) kg.MergeDecision {
	return kg.MergeDecision{
		ClusterID: cluster, Member: member, MemberType: typ, Canonical: canonical, Score: score, Rule: rule,
		DecidedBy: "auto", Band: "high", Signals: []string{"cosine"}, Mentions: 2, Evidence: evidence,
	}
}

// fixture is a small merge log: two uncertain pairs left apart, three
// merges (one of two names equal but for case, one with a name that is
// markup) and the nodes, edges and chunk they show.
func fixture() bundle.Contents {
	src := kg.Source{ID: "s1", URI: "docs/plants.md", Kind: kg.KindMarkdown}
	chunk := kg.Chunk{ID: "c1", SourceID: "s1", Text: chunkText, Span: kg.Span{Start: chunkStart, End: chunkStart + len(chunkText)}, Section: "Plants"}
	return bundle.Contents{
		Sources: []kg.Source{src},
		Chunks:  []kg.Chunk{chunk, {ID: "c2", SourceID: "s1", Ordinal: 1, Text: "unrelated", Span: kg.Span{Start: 5000, End: 5009}}},
		Graph: kg.Graph{
			Nodes: []kg.Node{
				concept("n-acme", "Acme Corp", "Company"),
				concept("n-acmeinc", "ACME Inc.", "Company"),
				concept("n-beta", "Beta Ltd", "Company"),
				concept("n-beta2", "Beta Limited", "Company"),
				concept("n-porto", "Porto plant", "Facility", "Porto Plant"),
				concept("n-lisbon", "Lisbon warehouse", "Facility", "Lisbon depot"),
				concept("n-evil", "Evil Co", "Company", "<script>alert(1)</script>"),
				{ID: "c1", Name: "s1#0", Kind: kg.NodeChunk, Labels: []string{"Chunk"}},
			},
			Edges: []kg.Edge{
				{ID: "e1", Src: "n-acme", Dst: "n-porto", Type: "supplies", Confidence: 1},
				{ID: "e2", Src: "n-porto", Dst: "n-lisbon", Type: "ships_to", Confidence: 1},
				{ID: "e3", Src: "c1", Dst: "n-porto", Type: "MENTIONS", Confidence: 1},
			},
			Merges: []kg.MergeDecision{
				merge("n-acme", "Acme Corp", "Acme Corp", "Company", "single", 1, ev("Acme Corp")),
				merge("n-acmeinc", "ACME Inc.", "ACME Inc.", "Company", "single", 1, ev("ACME Inc."), "c1:990-1010", "c1:999999-1000001", "nochunk:1-2", "garbage"),
				merge("n-beta", "Beta Ltd", "Beta Ltd", "Company", "single", 1, ev("Beta Ltd")),
				merge("n-beta2", "Beta Limited", "Beta Limited", "Company", "single", 1, ev("Beta Limited")),
				merge("n-porto", "Porto plant", "Porto plant", "Facility", "same_name", 1, ev("Porto plant")),
				merge("n-porto", "Porto Plant", "Porto plant", "Facility", "same_name", 1, ev("Porto Plant")),
				merge("n-lisbon", "Lisbon warehouse", "Lisbon warehouse", "Facility", "cosine_high", 0.91, ev("Lisbon warehouse")),
				merge("n-lisbon", "Lisbon depot", "Lisbon warehouse", "Facility", "cosine_high", 0.91, ev("Lisbon depot")),
				merge("n-evil", "Evil Co", "Evil Co", "Company", "cosine_high", 0.95),
				merge("n-evil", "<script>alert(1)</script>", "Evil Co", "Company", "cosine_high", 0.95, ev("<script>alert(1)</script>")),
			},
			MergeLinks: []kg.MergeLink{
				{ClusterID: "n-acme", A: "Acme Corp", B: "ACME Inc.", BCluster: "n-acmeinc", Cosine: 0.8, Signals: []string{"cosine"}, Band: "uncertain", Rule: "guard_short", Decision: "uncertain", Doubt: 0.4},
				{ClusterID: "n-porto", A: "Porto plant", B: "Porto Plant", BCluster: "n-porto", Cosine: 1, Signals: []string{"name", "cosine"}, Band: "high", Rule: "same_name", Decision: "merged", Doubt: 0},
				{ClusterID: "n-lisbon", A: "Lisbon warehouse", B: "Lisbon depot", BCluster: "n-lisbon", Cosine: 0.91, Signals: []string{"cosine"}, Band: "high", Rule: "cosine_high", Decision: "merged", Doubt: 0.7},
				{ClusterID: "n-beta", A: "Beta Ltd", B: "Beta Limited", BCluster: "n-beta2", Cosine: 0.84, Signals: []string{"cosine", "suffix"}, Band: "uncertain", Rule: "uncertain_cosine", Decision: "uncertain", Doubt: 0.9},
				{ClusterID: "n-evil", A: "Evil Co", B: "<script>alert(1)</script>", BCluster: "n-evil", Cosine: 0.95, Signals: []string{"cosine"}, Band: "high", Rule: "cosine_high", Decision: "merged", Doubt: 0.1},
			},
		},
	}
}

// The fixture's items, in the order the page lists them.
const (
	itemBeta   = 1 // uncertain, doubt 0.9
	itemAcme   = 2 // uncertain, doubt 0.4
	itemLisbon = 3 // merged, doubt 0.7
	itemEvil   = 4 // merged, doubt 0.1
	itemPorto  = 5 // merged, doubt 0, same name
	// Then the nodes of several names: Lisbon, Evil Co, Porto.
	itemLisbonNode = 6
	itemEvilNode   = 7
	itemPortoNode  = 8
)

// writeBundle commits c as a bundle and opens it.
func writeBundle(t testing.TB, c bundle.Contents) *bundle.Bundle {
	t.Helper()
	out := t.TempDir()
	w, err := bundle.Create(out, "review-test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(c, bundle.Manifest{Pipeline: "review-test"}); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// env is a review server over the fixture, served by Server.Serve on a
// loopback port, and its overrides file.
type env struct {
	srv       *review.Server
	url       string // http://127.0.0.1:PORT
	addr      string // 127.0.0.1:PORT
	overrides string
}

func newEnv(t *testing.T, c bundle.Contents, opts review.Options) *env {
	t.Helper()
	b := writeBundle(t, c)
	if opts.Overrides == "" {
		opts.Overrides = filepath.Join(t.TempDir(), "overrides.yaml")
	}
	if opts.By == "" {
		opts.By = "ana"
	}
	s, err := review.New(context.Background(), b, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	addr := ln.Addr().String()
	return &env{srv: s, url: "http://" + addr, addr: addr, overrides: opts.Overrides}
}

// noRedirect is a client that returns redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// get returns the status and body of GET path.
func (e *env) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(e.url + path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

var tokenRE = regexp.MustCompile(`name="token" value="([0-9a-f]+)"`)

// token reads the form token from the page.
func (e *env) token(t *testing.T) string {
	t.Helper()
	_, body := e.get(t, "/")
	m := tokenRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the page has no token field")
	}
	return m[1]
}

// post sends a form to path and returns the status, the Location header
// and the body, without following a redirect.
func (e *env) post(t *testing.T, path string, form url.Values) (code int, location, body string) {
	t.Helper()
	resp, err := noRedirect.PostForm(e.url+path, form)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(raw)
}
