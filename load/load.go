package load

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"kgforge/bundle"
	"kgforge/kg"

	"golang.org/x/sync/errgroup"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
)

// NodeLabel is carried by every node kgforge loads; (id, build_id) is unique.
const NodeLabel = "KGNode"

// BuildLabel marks the one node per loaded build that records its state; the
// build whose node has current = true is the graph readers should use.
const BuildLabel = "KGBuild"

// RowIndex is the index that finds a row entity of a build by its table
// and key: MATCH (n:KGNode {build_id: $b, table: 'suppliers', key: 'S1'}).
const RowIndex = "kgnode_row"

// Build states recorded on a KGBuild node.
const (
	StatusLoading  = "loading"
	StatusComplete = "complete"
)

// Config says where Neo4j is.
type Config struct {
	URI, Username, Password, Database string
	BatchSize                         int // rows per UNWIND; 0 means DefaultBatchSize
	Workers                           int // batches written at once; 0 means DefaultWorkers
	// Graph names the graph a bundle replaces, so that several pipelines can
	// share one database; "" means the pipeline name of the bundle.
	Graph string
	// RetryTime bounds the driver's retries of a transaction that failed
	// with a transient error or a lost connection; 0 means 30 s.
	RetryTime time.Duration
	// Full loads every bundle as a new staged build, never incrementally.
	Full bool
	// MaxChanges bounds the nodes and relationships an incremental load
	// adds, removes and changes in its one transaction; a bundle with more
	// changes is loaded in full. 0 means DefaultMaxChanges.
	MaxChanges int
}

// DefaultMaxChanges is the most changes an incremental load applies in its
// one transaction: well within the transaction memory of a 1 GiB heap.
const DefaultMaxChanges = 50_000

// The modes of a load (Stats.Mode).
const (
	ModeFull        = "full"        // a new build, staged beside the current one, then switched
	ModeIncremental = "incremental" // only what changed, in one transaction on the current build
)

// HashProperty is the property of every node and relationship kgforge loads
// that holds the digest of its labels or type, ends and other properties: an
// incremental load compares it with the bundle's to find what changed.
const HashProperty = "content_hash"

// maxBuffered bounds the rows held across all label sets or types, in
// batches: past it every partial batch is written, so memory stays bounded
// however many labels the LLM invented.
const maxBuffered = 4

// DefaultWorkers is the number of batches written at once, chosen by
// measurement (docs/benchmarks.md, "Neo4j load").
const DefaultWorkers = 2

// DefaultBatchSize is the number of rows per UNWIND batch, chosen by
// measurement (docs/benchmarks.md, "Neo4j load").
const DefaultBatchSize = 5000

// Loader loads bundles into one Neo4j database. It is safe for sequential
// use; Close releases the driver.
type Loader struct {
	driver  neo4j.DriverWithContext
	cfg     Config
	log     *slog.Logger
	retries atomic.Int64
	fresh   bool // the build being loaded was never started before: CREATE is safe
	// fault is a test double: tests set it to fail (or cancel) an
	// incremental load at a named step of its transaction; nil otherwise.
	fault func(step string) error
	// lockWait is how long a load waits for another load of its graph;
	// 0 means DefaultLockWait (tests shorten it).
	lockWait time.Duration
}

// Stats is what one load did.
type Stats struct {
	Nodes         int           `json:"nodes"`
	Relationships int           `json:"relationships"`
	StaleRemoved  int64         `json:"stale_removed"` // nodes of earlier builds removed, with their relationships
	Graph         string        `json:"graph"`
	Previous      string        `json:"previous_build,omitempty"` // the build of the graph that was current before
	AlreadyLoaded bool          `json:"already_loaded,omitempty"` // the build was current and whole: nothing written
	Duration      time.Duration `json:"duration_ns"`
	NodesTime     time.Duration `json:"nodes_ns"`
	// Retries counts writes sent again after the connection was lost
	// during their commit (the driver's own retries are not counted).
	Retries  int64         `json:"retries"`
	RelsTime time.Duration `json:"relationships_ns"`
	// Mode is ModeFull or ModeIncremental, and Reason says why.
	Mode   string `json:"mode"`
	Reason string `json:"mode_reason,omitempty"`
	// NodesBuild is the build id the graph's nodes carry (build_id, the
	// id of the current KGBuild): the bundle's build after a full load,
	// the build of the last full load after an incremental one.
	NodesBuild string `json:"nodes_build_id,omitempty"`
	// Changes is what an incremental load changed; nil after a full one.
	Changes *Changes `json:"changes,omitempty"`
	// DiffTime is the time spent comparing the bundle with the current
	// build; ApplyTime the time of the incremental transaction.
	DiffTime  time.Duration `json:"diff_ns,omitempty"`
	ApplyTime time.Duration `json:"apply_ns,omitempty"`
}

// Changes counts what an incremental load did to nodes and relationships.
type Changes struct {
	Nodes         Delta `json:"nodes"`
	Relationships Delta `json:"relationships"`
}

// Delta counts items added, removed, changed (a property, label, type or
// end differs) and unchanged, by id and content hash.
type Delta struct {
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
}

// New connects to Neo4j and checks that it answers.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Loader, error) {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	auth := neo4j.NoAuth()
	if cfg.Username != "" {
		auth = neo4j.BasicAuth(cfg.Username, cfg.Password, "")
	}
	d, err := neo4j.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		c.MaxTransactionRetryTime = cmp.Or(cfg.RetryTime, 30*time.Second) // Loader.retryTime
	})
	if err != nil {
		return nil, fmt.Errorf("connect to neo4j %s: %w", cfg.URI, err)
	}
	if err := d.VerifyConnectivity(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("connect to neo4j %s: %w (is it running? scripts/neo4j.sh start)", cfg.URI, err), d.Close(ctx))
	}
	return &Loader{driver: d, cfg: cfg, log: log}, nil
}

// Close releases the driver.
func (l *Loader) Close(ctx context.Context) error { return l.driver.Close(ctx) }

// schema is created before any data: ids are unique per build, builds are
// found by id, stale builds are found through the build_id index, and a
// row entity is found by its table and key (kg.PropTable, kg.PropKey).
var schema = []string{
	"DROP CONSTRAINT kgnode_id IF EXISTS", // format of kgforge before staged loads: ids unique across builds
	"CREATE CONSTRAINT kgnode_key IF NOT EXISTS FOR (n:" + NodeLabel + ") REQUIRE (n.id, n.build_id) IS UNIQUE",
	"CREATE INDEX kgnode_build IF NOT EXISTS FOR (n:" + NodeLabel + ") ON (n.build_id)",
	"CREATE INDEX " + RowIndex + " IF NOT EXISTS FOR (n:" + NodeLabel + ") ON (n.build_id, n." + kg.PropTable + ", n." + kg.PropKey + ")",
	"CREATE CONSTRAINT kgbuild_id IF NOT EXISTS FOR (b:" + BuildLabel + ") REQUIRE b.id IS UNIQUE",
}

// Load makes the bundle's graph the current one, incrementally when it can
// (see plan): only the nodes and relationships that differ from the current
// build, in one transaction, so that a failure rolls all of it back. In
// full, the graph is written beside the current build, stamped with its own
// build id (every write a MERGE on (id, build_id), so a retried or repeated
// batch is harmless and a load that was cut short resumes); only when every
// node and relationship is in and counted does one small transaction make
// it current. Then the nodes and relationships of every other build are
// removed. A load that fails at any point before the switch (or its one
// incremental transaction) leaves the previous build current and whole.
//
// One load per graph runs at a time: Load holds the graph's lock
// (LockLabel) throughout, and fails with a *GraphBusyError when another
// load holds it for longer than DefaultLockWait.
func (l *Loader) Load(ctx context.Context, b *bundle.Bundle) (st Stats, _ error) {
	start := time.Now()
	build := b.Manifest.BuildID
	st = Stats{Graph: l.graphOf(b)}
	l.retries.Store(0)
	defer func() { st.Retries, st.Duration = l.retries.Load(), time.Since(start) }()
	graph := st.Graph
	fail := func(what string, err error) (Stats, error) {
		return st, fmt.Errorf("load bundle %s into neo4j: %s: %w", b.Dir, what, err)
	}
	for _, q := range schema {
		if err := l.write(ctx, q, nil); err != nil {
			return fail("create constraints", err)
		}
	}
	lock, err := l.lockGraph(ctx, graph, build)
	if err != nil {
		return st, fmt.Errorf("load bundle %s into neo4j: %w", b.Dir, err)
	}
	defer lock.release(ctx, l, graph)
	cur, err := l.current(ctx, graph)
	if err != nil {
		return fail("read current build", err)
	}
	st.Previous = cur.bundle
	if cur.bundle == build {
		done, err := l.alreadyLoaded(ctx, b, cur, &st)
		if done || err != nil {
			return st, err
		}
	}
	t := time.Now()
	d, why, err := l.plan(ctx, b, cur)
	st.DiffTime = time.Since(t)
	if err != nil {
		return fail("compare with the current build", err)
	}
	st.Reason = why
	if d != nil {
		return l.loadIncremental(ctx, b, cur, d, st)
	}
	st.Mode = ModeFull
	if step, err := l.loadFull(ctx, b, cur, &st); err != nil {
		return fail(step, err)
	}
	l.log.Info("neo4j loaded", "graph", graph, "build_id", build, "mode", st.Mode, "why", why, "previous", cur.bundle, "nodes", st.Nodes, "relationships", st.Relationships,
		"stale_removed", st.StaleRemoved, "duration", time.Since(start).Round(time.Millisecond))
	return st, nil
}

// alreadyLoaded reports whether the graph holds the bundle whole (its
// current build is the bundle's and Neo4j holds its node and relationship
// counts); then it only removes stale builds.
func (l *Loader) alreadyLoaded(ctx context.Context, b *bundle.Bundle, cur current, st *Stats) (bool, error) {
	nodes, rels, err := l.countBuild(ctx, cur.id)
	if err != nil {
		return false, fmt.Errorf("load bundle %s into neo4j: count build: %w", b.Dir, err)
	}
	if nodes != b.Manifest.Counts["nodes"] || rels != b.Manifest.Counts["edges"] {
		return false, nil
	}
	st.AlreadyLoaded, st.Mode, st.NodesBuild = true, cur.mode, cur.id
	st.Nodes, st.Relationships = int(nodes), int(rels)
	if st.StaleRemoved, err = l.removeStale(ctx, st.Graph, cur.id); err != nil {
		return false, fmt.Errorf("load bundle %s into neo4j: remove stale builds: %w", b.Dir, err)
	}
	l.log.Info("neo4j already holds this build", "build_id", b.Manifest.BuildID, "nodes", nodes, "relationships", rels)
	return true, nil
}

// loadFull writes the bundle as a new build beside the current one, checks
// its counts, switches to it and removes the others. The new build's id is
// the bundle's, unless the current build's nodes already carry that id
// (an incremental load moved the graph away from that bundle and back):
// then it is the bundle's id with the suffix "-reload".
func (l *Loader) loadFull(ctx context.Context, b *bundle.Bundle, cur current, st *Stats) (step string, _ error) {
	build, graph := b.Manifest.BuildID, st.Graph
	id := build
	if cur.id == build {
		id = build + "-reload"
	}
	st.NodesBuild = id
	if err := l.begin(ctx, b, id, graph, cur.id); err != nil {
		return "begin", err
	}
	t := time.Now()
	var err error
	if st.Nodes, err = l.loadNodes(ctx, b, id); err != nil {
		return "nodes", err
	}
	st.NodesTime = time.Since(t)
	t = time.Now()
	if st.Relationships, err = l.loadRels(ctx, b, id); err != nil {
		return "relationships", err
	}
	st.RelsTime = time.Since(t)
	nodes, rels, err := l.countBuild(ctx, id)
	if err != nil {
		return "count build", err
	}
	if nodes != int64(st.Nodes) || rels != int64(st.Relationships) {
		return "check", fmt.Errorf("neo4j holds %d nodes and %d relationships of build %s, the bundle has %d and %d (duplicate ids in the bundle?)",
			nodes, rels, id, st.Nodes, st.Relationships)
	}
	if err := l.write(ctx, "MATCH (o:"+BuildLabel+" {graph: $graph}) WHERE o.current AND o.id <> $id SET o.current = false "+
		"WITH count(*) AS _ MATCH (b:"+BuildLabel+" {id: $id}) "+
		"SET b.current = true, b.status = $status, b.loaded = datetime(), b.nodes = $nodes, b.relationships = $rels, "+
		"b.bundle = $build, b.hashed = true, b.mode = $mode",
		map[string]any{"id": id, "build": build, "graph": graph, "status": StatusComplete, "nodes": nodes, "rels": rels, "mode": ModeFull}); err != nil {
		return "switch to the new build", err
	}
	if st.StaleRemoved, err = l.removeStale(ctx, graph, id); err != nil {
		return "remove stale builds", err
	}
	return "", nil
}

// begin registers the build as loading in graph, after removing the builds
// of graph that are neither current nor this one: builds that a load which
// failed or was killed left in StatusLoading. The build itself, if an
// earlier load left it half-written, is resumed; a build no earlier load
// started is written with CREATE (faster than MERGE), a resumed one with
// MERGE. A build recorded in another graph is refused, so that loading a
// bundle under a second graph name never takes it from the first.
func (l *Loader) begin(ctx context.Context, b *bundle.Bundle, build, graph, prev string) error {
	known, err := l.read(ctx, "MATCH (b:"+BuildLabel+" {id: $build}) RETURN coalesce(b.graph, $graph) AS graph",
		map[string]any{"build": build, "graph": graph})
	if err != nil {
		return fmt.Errorf("look up build: %w", err)
	}
	l.fresh = len(known.Records) == 0
	if !l.fresh {
		owner, _, err := neo4j.GetRecordValue[string](known.Records[0], "graph")
		if err != nil {
			return fmt.Errorf("look up build: %w", err)
		}
		if owner != graph {
			return fmt.Errorf("build %s is already loaded as graph %q; a build is loaded into one graph only (drop graph %q first, or load it as %q)",
				build, owner, owner, owner)
		}
	}
	removed, err := l.removeBuilds(ctx, graph, prev, build)
	if err != nil {
		return fmt.Errorf("remove builds left by failed loads: %w", err)
	}
	if removed > 0 {
		l.log.Info("neo4j: removed builds that failed loads left behind", "graph", graph, "nodes", removed)
	}
	err = l.write(ctx, "MERGE (b:"+BuildLabel+" {id: $build}) ON CREATE SET b.started = datetime(), b.current = false "+
		"SET b.status = $status, b.graph = $graph, b.created = $created",
		map[string]any{"build": build, "graph": graph, "status": StatusLoading, "created": b.Manifest.Created.UTC().Format(time.RFC3339)})
	if err != nil {
		return fmt.Errorf("register build: %w", err)
	}
	return nil
}

// loadNodes writes nodes grouped by label set (labels cannot be parameters).
func (l *Loader) loadNodes(ctx context.Context, b *bundle.Bundle, build string) (count int, _ error) {
	err := l.parallel(ctx, func(send func(job) error) error { return l.streamNodes(ctx, b, build, &count, send) })
	return count, err
}

func (l *Loader) streamNodes(ctx context.Context, b *bundle.Bundle, build string, count *int, send func(job) error) error {
	batches := map[string][]map[string]any{}
	flush := func(key string) error {
		rows := batches[key]
		if len(rows) == 0 {
			return nil
		}
		set := " SET n = row.props, n.id = row.id, n.build_id = $build"
		if key != "" {
			set += " SET n:" + key
		}
		merge := "UNWIND $rows AS row MERGE (n:" + NodeLabel + " {id: row.id, build_id: $build})" + set
		q := merge
		if l.fresh {
			q = "UNWIND $rows AS row CREATE (n:" + NodeLabel + ")" + set
		}
		batches[key] = nil // the batch is in flight: start a new one
		return send(job{q: q, again: merge, params: map[string]any{"rows": rows, "build": build}, want: -1, what: fmt.Sprintf("labels %q", key)})
	}
	buffered := 0
	err := b.Nodes(ctx, func(n kg.Node) error {
		key, row := nodeRow(n)
		batches[key] = append(batches[key], row)
		*count++
		buffered++
		if len(batches[key]) >= l.cfg.BatchSize {
			buffered -= len(batches[key])
			return flush(key)
		}
		if buffered >= maxBuffered*l.cfg.BatchSize { // many label sets: bound memory
			buffered = 0
			for _, k := range sortedKeys(batches) {
				if err := flush(k); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, key := range sortedKeys(batches) {
		if err := flush(key); err != nil {
			return err
		}
	}
	return nil
}

// loadRels writes relationships grouped by type, Config.Workers batches at
// once (see parallel for deadlocks). A relationship whose end is not a node
// of the build is an error, not a silent skip.
func (l *Loader) loadRels(ctx context.Context, b *bundle.Bundle, build string) (count int, _ error) {
	err := l.parallel(ctx, func(send func(job) error) error { return l.streamRels(ctx, b, build, &count, send) })
	return count, err
}

func (l *Loader) streamRels(ctx context.Context, b *bundle.Bundle, build string, count *int, send func(job) error) error {
	rels := map[string][]map[string]any{}
	flush := func(typ string) error {
		rows := rels[typ]
		if len(rows) == 0 {
			return nil
		}
		match := "UNWIND $rows AS row MATCH (a:" + NodeLabel + " {id: row.src, build_id: $build}) MATCH (b:" + NodeLabel + " {id: row.dst, build_id: $build}) "
		set := " SET r = row.props, r.id = row.id, r.build_id = $build RETURN count(r) AS n"
		merge := match + "MERGE (a)-[r:" + typ + " {id: row.id}]->(b)" + set
		q := merge
		if l.fresh {
			q = match + "CREATE (a)-[r:" + typ + "]->(b)" + set
		}
		rels[typ] = nil // the batch is in flight: start a new one
		return send(job{q: q, again: merge, params: map[string]any{"rows": rows, "build": build}, want: len(rows), what: "type " + typ})
	}
	buffered := 0
	err := b.Edges(ctx, func(e kg.Edge) error {
		typ, row := edgeRow(e)
		rels[typ] = append(rels[typ], row)
		*count++
		buffered++
		if len(rels[typ]) >= l.cfg.BatchSize {
			buffered -= len(rels[typ])
			return flush(typ)
		}
		if buffered >= maxBuffered*l.cfg.BatchSize { // many types: bound memory
			buffered = 0
			for _, t := range sortedKeys(rels) {
				if err := flush(t); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, typ := range sortedKeys(rels) {
		if err := flush(typ); err != nil {
			return err
		}
	}
	return nil
}

func (l *Loader) graphOf(b *bundle.Bundle) string {
	switch {
	case l.cfg.Graph != "":
		return l.cfg.Graph
	case b.Manifest.Pipeline != "":
		return b.Manifest.Pipeline
	}
	return "default"
}

// job is one batch statement; want is the count n it must return, or -1.
type job struct {
	q      string
	again  string // the idempotent form of q, for a retry after a lost commit
	params map[string]any
	want   int
	what   string
}

// parallel runs the batches produce sends on Config.Workers sessions at
// once. Batches of nodes never conflict; batches of relationships may lock
// the same nodes, and Neo4j then reports a deadlock, a transient error the
// driver retries (every write is idempotent).
func (l *Loader) parallel(ctx context.Context, produce func(send func(job) error) error) error {
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan job)
	for range l.cfg.Workers {
		g.Go(func() error {
			for j := range jobs {
				n, err := l.writeRetry(gctx, j.q, j.again, j.params)
				if err != nil {
					return fmt.Errorf("%s: %w", j.what, err)
				}
				if j.want >= 0 && n != int64(j.want) {
					return fmt.Errorf("%s: %d of %d relationships have an end that is not a node of the bundle", j.what, int64(j.want)-n, j.want)
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(jobs)
		return produce(func(j job) error {
			select {
			case jobs <- j:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	return g.Wait()
}

// Current returns the id of the current build of a graph, the build_id its
// nodes carry; "" when there is none.
func (l *Loader) Current(ctx context.Context, graph string) (string, error) {
	cur, err := l.current(ctx, graph)
	return cur.id, err
}

// Holds returns the build id of the bundle whose graph the graph now holds:
// the current build's after a full load, the bundle of the last
// incremental load after one; "" when the graph has no current build.
func (l *Loader) Holds(ctx context.Context, graph string) (string, error) {
	cur, err := l.current(ctx, graph)
	return cur.bundle, err
}

// current is the record of a graph's current build.
type current struct {
	id     string // the build_id its nodes carry
	bundle string // the build id of the bundle it holds (id before incremental loads)
	mode   string // the mode of the load that last wrote it
	hashed bool   // every node and relationship carries HashProperty
}

func (l *Loader) current(ctx context.Context, graph string) (current, error) {
	res, err := l.read(ctx, "MATCH (b:"+BuildLabel+" {graph: $graph}) WHERE b.current "+
		"RETURN b.id AS id, coalesce(b.bundle, b.id) AS bundle, coalesce(b.mode, $full) AS mode, coalesce(b.hashed, false) AS hashed ORDER BY b.loaded DESC LIMIT 1",
		map[string]any{"graph": graph, "full": ModeFull})
	if err != nil || len(res.Records) == 0 {
		return current{}, err
	}
	r := res.Records[0]
	var c current
	var ok bool
	if c.id, ok = r.Values[0].(string); !ok {
		return c, fmt.Errorf("the current build of graph %q has no id", graph)
	}
	c.bundle, _ = r.Values[1].(string)
	c.mode, _ = r.Values[2].(string)
	c.hashed, _ = r.Values[3].(bool)
	return c, nil
}

// countBuild counts the nodes of a build and the relationships between them.
func (l *Loader) countBuild(ctx context.Context, build string) (nodes, rels int64, err error) {
	res, err := l.read(ctx, "MATCH (n:"+NodeLabel+" {build_id: $build}) WITH count(n) AS nodes "+
		"OPTIONAL MATCH (:"+NodeLabel+" {build_id: $build})-[r]->(:"+NodeLabel+" {build_id: $build}) RETURN nodes, count(r) AS rels",
		map[string]any{"build": build})
	if err != nil {
		return 0, 0, err
	}
	nodes, _, err = neo4j.GetRecordValue[int64](res.Records[0], "nodes")
	if err != nil {
		return 0, 0, err
	}
	rels, _, err = neo4j.GetRecordValue[int64](res.Records[0], "rels")
	return nodes, rels, err
}

// removeStale deletes the nodes (with their relationships) and the build
// records of every other build of the graph, and the nodes of builds that
// have no build record (left by kgforge before staged loads), in batches
// through the build_id index. Other graphs are left alone.
func (l *Loader) removeStale(ctx context.Context, graph, build string) (int64, error) {
	total, err := l.removeListed(ctx, "MATCH (n:"+NodeLabel+") WHERE NOT EXISTS { MATCH (:"+BuildLabel+" {id: n.build_id}) } RETURN DISTINCT n.build_id AS b", nil)
	if err != nil {
		return total, err
	}
	n, err := l.removeBuilds(ctx, graph, build)
	return total + n, err
}

// Drop removes every build of a graph: its nodes with their relationships,
// in batches of the batch size, then its build records; it returns the
// number of nodes removed. Other graphs are left alone (and so are the
// nodes of builds with no record, which Load removes). It is how a test,
// or a user retiring a pipeline, takes a graph out of a shared database.
func (l *Loader) Drop(ctx context.Context, graph string) (int64, error) {
	if graph == "" {
		return 0, errors.New("drop neo4j graph: no graph named")
	}
	lock, err := l.lockGraph(ctx, graph, "")
	if err != nil {
		return 0, fmt.Errorf("drop neo4j graph %q: %w", graph, err)
	}
	defer lock.release(ctx, l, graph)
	n, err := l.removeBuilds(ctx, graph)
	if err != nil {
		return n, fmt.Errorf("drop neo4j graph %q: %w", graph, err)
	}
	return n, nil
}

// removeBuilds removes the builds of graph other than keep, and returns the
// number of nodes removed.
func (l *Loader) removeBuilds(ctx context.Context, graph string, keep ...string) (int64, error) {
	return l.removeListed(ctx, "MATCH (b:"+BuildLabel+" {graph: $graph}) WHERE NOT b.id IN $keep RETURN b.id AS b",
		map[string]any{"graph": graph, "keep": keep})
}

// removeListed removes every build whose id the read query returns as b,
// and returns the number of nodes removed.
func (l *Loader) removeListed(ctx context.Context, query string, params map[string]any) (int64, error) {
	res, err := l.read(ctx, query, params)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, rec := range res.Records {
		old, _, err := neo4j.GetRecordValue[string](rec, "b")
		if err != nil {
			return total, err
		}
		n, err := l.removeBuild(ctx, old)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// removeBuild deletes the nodes of a build in batches, then its record.
func (l *Loader) removeBuild(ctx context.Context, old string) (int64, error) {
	var total int64
	for {
		n, err := l.writeCount(ctx, "MATCH (n:"+NodeLabel+" {build_id: $old}) WITH n LIMIT $limit "+
			"DETACH DELETE n RETURN count(*) AS n",
			map[string]any{"old": old, "limit": l.cfg.BatchSize})
		if err != nil {
			return total, fmt.Errorf("build %s: %w", old, err)
		}
		total += n
		if n == 0 {
			break
		}
	}
	if err := l.write(ctx, "MATCH (b:"+BuildLabel+" {id: $old}) DELETE b", map[string]any{"old": old}); err != nil {
		return total, fmt.Errorf("build %s: %w", old, err)
	}
	return total, nil
}

// write runs one statement in a managed write transaction, which the driver
// retries on transient errors and lost connections; every statement kgforge
// sends is idempotent, so a retry after a commit whose answer was lost is
// harmless.
func (l *Loader) write(ctx context.Context, q string, params map[string]any) error {
	_, err := l.writeCount(ctx, q, params)
	return err
}

// writeCount is write for a statement that returns one integer column n.
//
// The driver retries transient errors but not a connection lost during
// commit, since it cannot know whether the commit happened. Every kgforge
// write is idempotent, so that case is retried here, with exponential
// backoff and jitter, within the same time bound as the driver's retries.
func (l *Loader) writeCount(ctx context.Context, q string, params map[string]any) (int64, error) {
	return l.writeRetry(ctx, q, q, params)
}

// writeRetry is writeCount for a statement q that may not be idempotent (a
// CREATE into a build nobody wrote before, which is faster than MERGE): a
// commit whose answer was lost is retried with the idempotent again.
func (l *Loader) writeRetry(ctx context.Context, q, again string, params map[string]any) (int64, error) {
	deadline := time.Now().Add(l.retryTime())
	delay := 100 * time.Millisecond
	for {
		n, err := l.writeOnce(ctx, q, params)
		q = again
		var ce *neo4j.ConnectivityError
		if err == nil || !errors.As(err, &ce) || time.Now().Add(delay).After(deadline) {
			return n, err
		}
		l.retries.Add(1)
		l.log.Warn("neo4j connection lost during a write; retrying it (every write is idempotent)", "err", err, "after", delay)
		select {
		case <-ctx.Done():
			return n, errors.Join(err, ctx.Err())
		case <-time.After(delay/2 + rand.N(delay/2)):
		}
		delay = min(2*delay, 5*time.Second)
	}
}

func (l *Loader) retryTime() time.Duration { return cmp.Or(l.cfg.RetryTime, 30*time.Second) }

func (l *Loader) writeOnce(ctx context.Context, q string, params map[string]any) (int64, error) {
	s := l.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: l.cfg.Database, AccessMode: neo4j.AccessModeWrite})
	n, err := neo4j.ExecuteWrite(ctx, s, func(tx neo4j.ManagedTransaction) (int64, error) {
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return 0, err
		}
		var n int64
		if res.Next(ctx) {
			if v, ok := res.Record().Get("n"); ok {
				n, _ = v.(int64)
			}
		}
		_, err = res.Consume(ctx)
		return n, err
	})
	return n, errors.Join(err, s.Close(ctx))
}

func (l *Loader) read(ctx context.Context, q string, params map[string]any) (*neo4j.EagerResult, error) {
	return neo4j.ExecuteQuery(ctx, l.driver, q, params, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithDatabase(l.cfg.Database), neo4j.ExecuteQueryWithReadersRouting())
}

// Counts returns the number of nodes and relationships of the current build
// of a graph.
func (l *Loader) Counts(ctx context.Context, graph string) (nodes, rels int64, err error) {
	cur, err := l.Current(ctx, graph)
	if err != nil {
		return 0, 0, fmt.Errorf("count neo4j graph: %w", err)
	}
	nodes, rels, err = l.countBuild(ctx, cur)
	if err != nil {
		return 0, 0, fmt.Errorf("count neo4j graph: %w", err)
	}
	return nodes, rels, nil
}

// Total returns the number of kgforge nodes and relationships of all builds.
func (l *Loader) Total(ctx context.Context) (nodes, rels int64, err error) {
	res, err := l.read(ctx, "MATCH (n:"+NodeLabel+") WITH count(n) AS nodes OPTIONAL MATCH (:"+NodeLabel+")-[r]->(:"+NodeLabel+") RETURN nodes, count(r) AS rels", nil)
	if err != nil {
		return 0, 0, fmt.Errorf("count neo4j graph: %w", err)
	}
	nodes, _, err = neo4j.GetRecordValue[int64](res.Records[0], "nodes")
	if err != nil {
		return 0, 0, err
	}
	rels, _, err = neo4j.GetRecordValue[int64](res.Records[0], "rels")
	return nodes, rels, err
}

// labelKey returns the labels of a node beside NodeLabel, sorted and joined
// by ":" (NodeTypeLabel keeps reserved names out), and the first label the
// node had that was renamed for spelling a reserved one.
func labelKey(n kg.Node) (key, renamed string) {
	var clean []string
	for _, l := range n.Labels {
		s := NodeTypeLabel(n.Kind, l)
		if s != Label(l) && renamed == "" {
			renamed = l
		}
		if s != "" && !slices.Contains(clean, s) {
			clean = append(clean, s)
		}
	}
	slices.Sort(clean)
	return strings.Join(clean, ":"), renamed
}

// nodeRow returns the label key of a node and its row for an UNWIND batch:
// id and props, which hold HashProperty, the digest of the key and the
// other properties.
func nodeRow(n kg.Node) (key string, row map[string]any) {
	key, renamed := labelKey(n)
	p := nodeProps(n, renamed)
	p[HashProperty] = contentHash(key, p)
	return key, map[string]any{"id": n.ID, "props": p}
}

// edgeRow returns the relationship type of an edge and its row for an
// UNWIND batch: id, src, dst and props, which hold HashProperty, the digest
// of the type, the ends and the other properties.
func edgeRow(e kg.Edge) (typ string, row map[string]any) {
	typ = EdgeType(e.Type)
	p := edgeProps(e)
	p[HashProperty] = contentHash(typ+"\x00"+e.Src+"\x00"+e.Dst, p)
	return typ, map[string]any{"id": e.ID, "src": e.Src, "dst": e.Dst, "props": p}
}

// contentHash digests a label key or type and a property map (JSON
// encodes a map with its keys sorted, so equal maps digest alike).
func contentHash(key string, props map[string]any) string {
	j, err := json.Marshal(props)
	if err != nil { // the properties are strings, lists of them and numbers
		panic(fmt.Sprintf("load: properties that JSON cannot encode: %v", err))
	}
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(j)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// nodeProps returns the properties of a node; renamed is the label that
// labelKey renamed, kept as the property type unless the node has one.
func nodeProps(n kg.Node, renamed string) map[string]any {
	p := map[string]any{"name": n.Name, "kind": string(n.Kind)}
	if _, ok := n.Properties["type"]; !ok && renamed != "" {
		p["type"] = renamed
	}
	if n.Description != "" {
		p["description"] = n.Description
	}
	if len(n.Aliases) > 0 {
		p["aliases"] = n.Aliases
	}
	if len(n.ChunkIDs) > 0 {
		p["chunk_ids"] = n.ChunkIDs
	}
	for k, v := range n.Properties {
		if _, taken := p[k]; !taken && !reservedProp(k) {
			p[k] = v
		}
	}
	return p
}

func edgeProps(e kg.Edge) map[string]any {
	p := map[string]any{"type": e.Type, "confidence": e.Confidence}
	if e.Evidence != "" {
		p["evidence"] = e.Evidence
	}
	if len(e.ChunkIDs) > 0 {
		p["chunk_ids"] = e.ChunkIDs
	}
	if e.ValidFrom != "" {
		p["valid_from"] = e.ValidFrom
	}
	if e.ValidTo != "" {
		p["valid_to"] = e.ValidTo
	}
	for k, v := range e.Properties {
		if _, taken := p[k]; !taken && !reservedProp(k) {
			p[k] = v
		}
	}
	return p
}

// reservedProp reports whether a property name is the loader's own, which
// no property of a node or edge of the bundle replaces.
func reservedProp(k string) bool { return k == "id" || k == "build_id" || k == HashProperty }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// query returns the first column of the first row of a read query, as a string.
func (l *Loader) query(ctx context.Context, q string, params map[string]any) (string, error) {
	res, err := l.read(ctx, q, params)
	if err != nil || len(res.Records) == 0 {
		return "", err
	}
	return fmt.Sprint(res.Records[0].Values[0]), nil
}
