package load

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/kg"
)

var (
	labelRe = regexp.MustCompile(`^([A-Z][A-Za-z0-9]*)?$`)
	relRe   = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

func TestSanitizers(t *testing.T) {
	labels := map[string]string{
		"company": "Company", "quality incident": "QualityIncident", "`}) DETACH DELETE n //": "DETACHDELETEN",
		"Ｃompany": "Ompany", "123": "", "": "", "Label`:Admin": "LabelAdmin",
	}
	for in, want := range labels {
		if got := Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
	rels := map[string]string{
		"buys_from": "BUYS_FROM", "is located in": "IS_LOCATED_IN", "`]->() DETACH DELETE a //": "DETACH_DELETE_A",
		"": "RELATED_TO", "'\"": "RELATED_TO", "2nd supplier": "ND_SUPPLIER", "ѕupplies": "UPPLIES",
	}
	for in, want := range rels {
		if got := RelType(in); got != want {
			t.Errorf("RelType(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSanitizers(f *testing.F) {
	f.Add("`}) DETACH DELETE n //")
	f.Add("ünïcode`\"'")
	f.Add("kg build")
	f.Add("has chunk")
	f.Fuzz(func(t *testing.T, s string) {
		if l := Label(s); !labelRe.MatchString(l) || len(l) > maxIdent {
			t.Fatalf("Label(%q) = %q", s, l)
		}
		if r := RelType(s); !relRe.MatchString(r) || len(r) > maxIdent+1 {
			t.Fatalf("RelType(%q) = %q", s, r)
		}
		if l := NodeTypeLabel(kg.NodeConcept, s); !labelRe.MatchString(l) || (foldIn(l, reservedLabels) && l != "Entity") {
			t.Fatalf("NodeTypeLabel(concept, %q) = %q", s, l)
		}
		if r := EdgeType(s); !relRe.MatchString(r) || (foldIn(r, reservedRelTypes) && r != s) {
			t.Fatalf("EdgeType(%q) = %q", s, r)
		}
	})
}

// neo4jAddr returns the Bolt URI of the test server, skipping without one.
func neo4jURI(t *testing.T) string {
	t.Helper()
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_INTEGRATION not set; run make test")
	}
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		t.Fatal("KGFORGE_INTEGRATION is set but NEO4J_URI is not")
	}
	return uri
}

// testPrefix starts the name of every graph and build this test process
// loads, so that they never meet a user's graph (make demo's
// bikeco-example) or another run's, and TestMain can check that none is
// left behind.
var testPrefix = fmt.Sprintf("kgforge-test-%08x-", rand.Uint32())

// TestMain runs the tests, then checks that they removed everything they
// loaded: no build record of a test graph and no node of a test build.
func TestMain(m *testing.M) {
	code := m.Run()
	if uri := os.Getenv("NEO4J_URI"); code == 0 && os.Getenv("KGFORGE_INTEGRATION") != "" && uri != "" {
		if err := checkNothingLeft(uri); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

func checkNothingLeft(uri string) error {
	ctx := context.Background()
	l, err := New(ctx, Config{URI: uri, Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD")}, nil)
	if err != nil {
		return err
	}
	defer func() { _ = l.Close(ctx) }()
	res, err := l.read(ctx, "MATCH (n) WHERE n.build_id STARTS WITH $p OR n.graph STARTS WITH $p RETURN count(n) AS n", map[string]any{"p": testPrefix})
	if err != nil {
		return err
	}
	if n := res.Records[0].Values[0].(int64); n != 0 {
		return fmt.Errorf("the load tests left %d nodes of graphs and builds named %s* in neo4j", n, testPrefix)
	}
	fmt.Printf("neo4j holds 0 nodes of this run's test graphs (%s*)\n", testPrefix)
	return nil
}

// newLoader connects to uri with a graph name of the test's own, so that
// tests of other packages loading the same server are left alone; at the
// end of the test whatever graph l.cfg.Graph then names is dropped.
func newLoader(t *testing.T, uri string, batch int) *Loader {
	t.Helper()
	l, err := New(context.Background(), Config{
		URI: uri, Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"),
		BatchSize: batch, Graph: testPrefix + t.Name(),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dropTestGraph(t, l.cfg.Graph)
		_ = l.Close(context.Background())
	})
	return l
}

// dropTestGraph removes a graph through a connection of its own (the
// test's may go through a proxy that cuts it).
func dropTestGraph(t *testing.T, graph string) {
	t.Helper()
	ctx := context.Background()
	l, err := New(ctx, Config{URI: os.Getenv("NEO4J_URI"), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD")}, nil)
	if err != nil {
		t.Errorf("drop test graph %s: %v", graph, err)
		return
	}
	defer func() { _ = l.Close(ctx) }()
	if _, err := l.Drop(ctx, graph); err != nil {
		t.Errorf("drop test graph: %v", err)
	}
}

func buildBundle(t *testing.T, id string, g kg.Graph) *bundle.Bundle {
	t.Helper()
	out := t.TempDir()
	id = strings.ReplaceAll(testPrefix+id, "/", "_")
	w, err := bundle.Create(out, fmt.Sprintf("%s-%d", id, time.Now().UnixNano())) // new to the server on every run
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(bundle.Contents{Graph: g}, bundle.Manifest{}); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// testGraph is a small entity graph: n nodes, about 3n relationships of a
// few types, with properties; salt changes every description.
func testGraph(n int, salt string) kg.Graph {
	var g kg.Graph
	types := []string{"Supplier", "Part", "Plant"}
	for i := range n {
		g.Nodes = append(g.Nodes, kg.Node{
			ID: kg.ID("node", fmt.Sprint(i)), Name: fmt.Sprintf("entity %d", i), Kind: kg.NodeConcept,
			Labels: []string{"Entity", types[i%len(types)]}, Description: fmt.Sprintf("entity number %d %s", i, salt),
			ChunkIDs: []string{kg.ID("chunk", fmt.Sprint(i%7))}, Properties: map[string]string{"type": types[i%len(types)]},
		})
	}
	preds := []string{"supplies", "located_in", "part_of", "delivered_to"}
	for i := range n {
		for k := 1; k <= 3; k++ {
			j := (i*7 + k*13) % n
			if j == i {
				continue
			}
			p := preds[(i+k)%len(preds)]
			src, dst := g.Nodes[i].ID, g.Nodes[j].ID
			g.Edges = append(g.Edges, kg.Edge{
				ID: kg.EdgeID(src, p, dst), Src: src, Dst: dst, Type: p,
				Confidence: 1, Evidence: fmt.Sprintf("entity %d %s entity %d", i, p, j), ChunkIDs: []string{kg.ID("chunk", fmt.Sprint(i%7))},
			})
		}
	}
	return g
}

// graphState is the current build's graph as Neo4j holds it, as sorted
// lines, so two states compare with slices.Equal.
func graphState(t *testing.T, l *Loader) []string {
	t.Helper()
	ctx := context.Background()
	cur, err := l.Current(ctx, l.cfg.Graph)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.read(ctx, "MATCH (n:"+NodeLabel+" {build_id: $b}) RETURN n.id + '|' + n.name + '|' + coalesce(n.description, '') AS line "+
		"UNION ALL MATCH (a:"+NodeLabel+" {build_id: $b})-[r]->(c:"+NodeLabel+" {build_id: $b}) RETURN a.id + '-' + type(r) + '->' + c.id + '|' + r.id AS line",
		map[string]any{"b": cur})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range res.Records {
		lines = append(lines, r.Values[0].(string))
	}
	slices.Sort(lines)
	return lines
}

// bundleState is graphState for the graph of a bundle.
func bundleState(g kg.Graph) []string {
	var lines []string
	for _, n := range g.Nodes {
		lines = append(lines, n.ID+"|"+n.Name+"|"+n.Description)
	}
	for _, e := range g.Edges {
		lines = append(lines, e.Src+"-"+EdgeType(e.Type)+"->"+e.Dst+"|"+e.ID)
	}
	slices.Sort(lines)
	return lines
}

func TestLoaderIntegration_IdempotentAndInjectionSafe(t *testing.T) {
	l := newLoader(t, neo4jURI(t), 2)
	l.cfg.Full = true // build-2 is a new staged build; incremental_test.go covers the other way
	ctx := context.Background()
	graph := l.cfg.Graph
	hostile := []string{"`}) DETACH DELETE n //", "Company`:Admin", "Ｃompany", "x' OR 1=1 --", "a]->() MATCH (m) DETACH DELETE m //", "Кompany\u200b"}
	g := kg.Graph{}
	for i, h := range hostile {
		id := kg.ID("n", h)
		g.Nodes = append(g.Nodes, kg.Node{ID: id, Name: h, Kind: kg.NodeConcept, Labels: []string{"Entity", h}, Properties: map[string]string{"type": h}})
		if i > 0 {
			g.Edges = append(g.Edges, kg.Edge{ID: kg.EdgeID(g.Nodes[0].ID, h, id), Src: g.Nodes[0].ID, Dst: id, Type: h, Evidence: h, Confidence: 1})
		}
	}
	g.Nodes = append(g.Nodes, kg.Node{ID: "doc1", Name: "a.md", Kind: kg.NodeDocument, Labels: []string{"Document"}})
	// A sentinel of another graph: nothing this test loads may touch it.
	other := newLoader(t, l.cfg.URI, 10)
	other.cfg.Graph = graph + "-other"
	if _, err := other.Load(ctx, buildBundle(t, "other-1", testGraph(5, "x"))); err != nil {
		t.Fatal(err)
	}

	b1 := buildBundle(t, "build-1-"+t.Name(), g)
	st, err := l.Load(ctx, b1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := graphState(t, l), bundleState(g); !slices.Equal(got, want) {
		t.Fatalf("after load neo4j holds\n%q\nwant\n%q", got, want)
	}
	if st.Nodes != len(g.Nodes) || st.Relationships != len(g.Edges) || st.AlreadyLoaded {
		t.Errorf("stats %+v", st)
	}
	// Labels and types are strict identifiers; the hostile text is data.
	for _, q := range []string{
		"MATCH (n:" + NodeLabel + " {build_id: $b}) UNWIND labels(n) AS x RETURN DISTINCT x",
		"MATCH (:" + NodeLabel + " {build_id: $b})-[r]->() RETURN DISTINCT type(r)",
	} {
		res, err := l.read(ctx, q, map[string]any{"b": b1.Manifest.BuildID})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			x := r.Values[0].(string)
			if !labelRe.MatchString(x) && !relRe.MatchString(x) {
				t.Errorf("label or type %q is not a strict identifier", x)
			}
		}
	}
	res, err := l.query(ctx, "MATCH (n:"+NodeLabel+" {id: $id, build_id: $b}) RETURN n.type", map[string]any{"id": g.Nodes[0].ID, "b": b1.Manifest.BuildID})
	if err != nil || res != hostile[0] {
		t.Errorf("type property = %q, %v; want the text as it was", res, err)
	}

	// The same bundle again changes nothing and writes nothing.
	before := graphState(t, l)
	st, err = l.Load(ctx, b1)
	if err != nil {
		t.Fatal(err)
	}
	if !st.AlreadyLoaded || !slices.Equal(graphState(t, l), before) {
		t.Errorf("reload: stats %+v, graph changed: %v", st, !slices.Equal(graphState(t, l), before))
	}

	// A new build without the hostile nodes replaces the old graph.
	g2 := kg.Graph{Nodes: g.Nodes[len(g.Nodes)-1:]}
	st, err = l.Load(ctx, buildBundle(t, "build-2-"+t.Name(), g2))
	if err != nil {
		t.Fatal(err)
	}
	if got := graphState(t, l); !slices.Equal(got, bundleState(g2)) || st.StaleRemoved != int64(len(g.Nodes)) || st.Previous != b1.Manifest.BuildID {
		t.Errorf("after build-2: %q, stats %+v", got, st)
	}
	if n, r, err := other.Counts(ctx, other.cfg.Graph); err != nil || n != 5 || r == 0 {
		t.Errorf("the other graph: %d nodes %d relationships, %v", n, r, err)
	}
}

func TestLoaderIntegration_FailedLoadLeavesPreviousBuild(t *testing.T) {
	uri := neo4jURI(t)
	ctx := context.Background()
	g1, g2 := testGraph(300, "one"), testGraph(400, "two")
	l := newLoader(t, uri, 50)
	l.cfg.Full = true // the staged load; incremental_test.go has the incremental one
	b1 := buildBundle(t, "fail-1-"+t.Name(), g1)
	if _, err := l.Load(ctx, b1); err != nil {
		t.Fatal(err)
	}
	want := bundleState(g1)

	// The connection dies for good half-way through the second build.
	p := startProxy(t, uri)
	p.killAfter(60_000, true)
	lp, err := New(ctx, Config{
		URI: p.uri(), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD"),
		BatchSize: 50, Graph: l.cfg.Graph, RetryTime: 3 * time.Second, Full: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lp.Close(ctx) })
	b2 := buildBundle(t, "fail-2-"+t.Name(), g2)
	if _, err := lp.Load(ctx, b2); err == nil {
		t.Fatal("load through a dead connection succeeded")
	}
	if p.killed.Load() == 0 {
		t.Fatal("the proxy never cut the connection")
	}
	if got := graphState(t, l); !slices.Equal(got, want) {
		t.Fatalf("after a failed load the graph is not the previous build: %d lines, want %d", len(got), len(want))
	}
	if cur, _ := l.Current(ctx, l.cfg.Graph); cur != b1.Manifest.BuildID {
		t.Errorf("current = %s, want %s", cur, b1.Manifest.BuildID)
	}
	// Loading it again over a good connection resumes and switches.
	st, err := l.Load(ctx, b2)
	if err != nil {
		t.Fatal(err)
	}
	if got := graphState(t, l); !slices.Equal(got, bundleState(g2)) {
		t.Errorf("after the retried load: %d lines, want %d", len(got), len(bundleState(g2)))
	}
	if n, _, err := l.countBuild(ctx, b1.Manifest.BuildID); err != nil || n != 0 || st.StaleRemoved != int64(len(g1.Nodes)) {
		t.Errorf("previous build left %d nodes (%v); stats %+v", n, err, st)
	}
}

func TestLoaderIntegration_ConnectionKilledMidLoad(t *testing.T) {
	uri := neo4jURI(t)
	ctx := context.Background()
	g := testGraph(500, "kill")
	p := startProxy(t, uri)
	cuts := []struct {
		name string
		arm  func()
	}{
		// Anywhere in the byte stream: a statement, its results or a commit.
		{"after 40000 bytes", func() { p.killAfter(40_000, false) }},
		{"after 150000 bytes", func() { p.killAfter(150_000, false) }},
		// Right after a COMMIT reached the server, before its answer came
		// back: the driver cannot know whether it committed and does not
		// retry; the loader does, since its writes are idempotent.
		{"after the 3rd commit", func() { p.killAfterCommits(3) }},
		{"after the 12th commit", func() { p.killAfterCommits(12) }},
	}
	for i, cut := range cuts {
		cut.arm()
		l := newLoader(t, p.uri(), 40)
		l.cfg.Graph = fmt.Sprintf("%s-%d", l.cfg.Graph, i)
		st, err := l.Load(ctx, buildBundle(t, fmt.Sprintf("kill-%d-%s", i, t.Name()), g))
		if err != nil {
			t.Fatalf("cut %s: %v", cut.name, err)
		}
		if p.killed.Load() == 0 {
			t.Fatalf("cut %s: the proxy never cut (the load sent less)", cut.name)
		}
		p.killed.Store(0)
		if strings.Contains(cut.name, "commit") && st.Retries == 0 {
			t.Errorf("cut %s: the loader retried nothing", cut.name)
		}
		if got := graphState(t, l); !slices.Equal(got, bundleState(g)) || st.Nodes != len(g.Nodes) {
			t.Errorf("cut %s: neo4j holds %d lines, want %d", cut.name, len(got), len(bundleState(g)))
		}
	}
}

// proxy forwards Bolt connections to Neo4j and can cut every connection
// once the clients have sent a number of bytes, like a network that fails
// in the middle of a transaction or its commit.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	sent   atomic.Int64
	limit  atomic.Int64
	dead   atomic.Bool // refuse every connection from now on
	// commits, when above zero, counts down the COMMIT messages to forward
	// before cutting.
	commits atomic.Int64
	killed  atomic.Int64
	forGood bool
}

func startProxy(t *testing.T, uri string) *proxy {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: u.Host}
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) uri() string { return "bolt://" + p.ln.Addr().String() }

// killAfter arms the proxy: once clients have sent n more bytes, every open
// connection is closed; forGood also refuses every later connection.
func (p *proxy) killAfter(n int64, forGood bool) {
	p.mu.Lock()
	p.forGood = forGood
	p.mu.Unlock()
	p.limit.Store(p.sent.Load() + n)
}

// killAfterCommits arms the proxy to cut every connection right after the
// nth COMMIT message from now has been forwarded to the server.
func (p *proxy) killAfterCommits(n int64) {
	p.mu.Lock()
	p.forGood = false
	p.mu.Unlock()
	p.commits.Store(n)
}

// boltCommit is a whole Bolt COMMIT message: a chunk of two bytes holding
// an empty structure with signature 0x12, and the end-of-message marker.
var boltCommit = []byte{0x00, 0x02, 0xB0, 0x12, 0x00, 0x00}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	if p.forGood {
		p.dead.Store(true)
	}
	p.killed.Add(1)
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if p.dead.Load() {
			_ = c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		var mute atomic.Bool // drop the server's answers from now on
		go func() {
			buf := make([]byte, 4096)
			for {
				n, err := s.Read(buf)
				if n > 0 && !mute.Load() {
					if _, err := c.Write(buf[:n]); err != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() {
			buf := make([]byte, 4096)
			for {
				n, err := c.Read(buf)
				if n > 0 && p.commits.Load() > 0 && bytes.Contains(buf[:n], boltCommit) && p.commits.Add(-1) == 0 {
					mute.Store(true)
					_, _ = s.Write(buf[:n])
					time.Sleep(50 * time.Millisecond) // let the server commit
					p.cut()
					return
				}
				if n > 0 {
					if lim := p.limit.Load(); lim > 0 && p.sent.Add(int64(n)) >= lim && p.limit.CompareAndSwap(lim, 0) {
						// Forward the bytes that crossed the line, then cut:
						// the statement or commit reaches the server, its
						// answer never reaches the client.
						_, _ = s.Write(buf[:n])
						p.cut()
						return
					}
					if lim := p.limit.Load(); lim == 0 {
						p.sent.Add(int64(n))
					}
					if _, err := s.Write(buf[:n]); err != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}
