package load

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"kgforge/bundle"
	"kgforge/kg"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
)

// NodeLabel is carried by every node kgforge loads; its id is unique.
const NodeLabel = "KGNode"

// Config says where Neo4j is.
type Config struct {
	URI, Username, Password, Database string
	BatchSize                         int // rows per UNWIND; 0 means 1000
}

// Loader loads bundles into one Neo4j database. It is safe for sequential
// use; Close releases the driver.
type Loader struct {
	driver neo4j.DriverWithContext
	cfg    Config
	log    *slog.Logger
}

// Stats is what one load did.
type Stats struct {
	Nodes         int           `json:"nodes"`
	Relationships int           `json:"relationships"`
	StaleRemoved  int64         `json:"stale_removed"`
	Duration      time.Duration `json:"duration_ns"`
}

// New connects to Neo4j and checks that it answers.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Loader, error) {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 1000
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	auth := neo4j.NoAuth()
	if cfg.Username != "" {
		auth = neo4j.BasicAuth(cfg.Username, cfg.Password, "")
	}
	d, err := neo4j.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		c.MaxTransactionRetryTime = 30 * time.Second
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

// Load writes the bundle's graph, stamped with its build id, then removes
// every node and relationship of other builds.
func (l *Loader) Load(ctx context.Context, b *bundle.Bundle) (Stats, error) {
	start := time.Now()
	build := b.Manifest.BuildID
	var st Stats
	if err := l.write(ctx, "CREATE CONSTRAINT kgnode_id IF NOT EXISTS FOR (n:"+NodeLabel+") REQUIRE n.id IS UNIQUE", nil); err != nil {
		return st, fmt.Errorf("load bundle %s: create constraint: %w", b.Dir, err)
	}
	// Nodes are grouped by label set: labels cannot be parameters.
	batches := map[string][]map[string]any{}
	flushNodes := func(key string) error {
		rows := batches[key]
		if len(rows) == 0 {
			return nil
		}
		q := "UNWIND $rows AS row MERGE (n:" + NodeLabel + " {id: row.id}) SET n = row.props, n.id = row.id, n.build_id = $build"
		if key != "" {
			q += " SET n:" + key
		}
		batches[key] = rows[:0]
		if err := l.write(ctx, q, map[string]any{"rows": rows, "build": build}); err != nil {
			return fmt.Errorf("load bundle %s: nodes %s: %w", b.Dir, key, err)
		}
		return nil
	}
	err := b.Nodes(ctx, func(n kg.Node) error {
		key := labelKey(n.Labels)
		batches[key] = append(batches[key], map[string]any{"id": n.ID, "props": nodeProps(n)})
		st.Nodes++
		if len(batches[key]) >= l.cfg.BatchSize {
			return flushNodes(key)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	for _, key := range sortedKeys(batches) {
		if err := flushNodes(key); err != nil {
			return st, err
		}
	}
	// Relationships are grouped by type and written serially, so two
	// batches never lock the same nodes at once.
	rels := map[string][]map[string]any{}
	flushRels := func(typ string) error {
		rows := rels[typ]
		if len(rows) == 0 {
			return nil
		}
		q := "UNWIND $rows AS row MATCH (a:" + NodeLabel + " {id: row.src}) MATCH (b:" + NodeLabel + " {id: row.dst}) " +
			"MERGE (a)-[r:" + typ + " {id: row.id}]->(b) SET r = row.props, r.id = row.id, r.build_id = $build"
		rels[typ] = rows[:0]
		if err := l.write(ctx, q, map[string]any{"rows": rows, "build": build}); err != nil {
			return fmt.Errorf("load bundle %s: relationships %s: %w", b.Dir, typ, err)
		}
		return nil
	}
	err = b.Edges(ctx, func(e kg.Edge) error {
		typ := RelType(e.Type)
		rels[typ] = append(rels[typ], map[string]any{"id": e.ID, "src": e.Src, "dst": e.Dst, "props": edgeProps(e)})
		st.Relationships++
		if len(rels[typ]) >= l.cfg.BatchSize {
			return flushRels(typ)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	for _, typ := range sortedKeys(rels) {
		if err := flushRels(typ); err != nil {
			return st, err
		}
	}
	removed, err := l.removeStale(ctx, build)
	if err != nil {
		return st, fmt.Errorf("load bundle %s: remove stale: %w", b.Dir, err)
	}
	st.StaleRemoved = removed
	st.Duration = time.Since(start)
	l.log.Info("neo4j loaded", "build_id", build, "nodes", st.Nodes, "relationships", st.Relationships, "stale_removed", removed)
	return st, nil
}

func (l *Loader) removeStale(ctx context.Context, build string) (int64, error) {
	var total int64
	for _, q := range []string{
		"MATCH (:" + NodeLabel + ")-[r]->(:" + NodeLabel + ") WHERE r.build_id <> $build WITH r LIMIT $limit DELETE r RETURN count(*) AS n",
		"MATCH (n:" + NodeLabel + ") WHERE n.build_id <> $build WITH n LIMIT $limit DETACH DELETE n RETURN count(*) AS n",
	} {
		for {
			res, err := neo4j.ExecuteQuery(ctx, l.driver, q, map[string]any{"build": build, "limit": l.cfg.BatchSize},
				neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(l.cfg.Database), neo4j.ExecuteQueryWithWritersRouting())
			if err != nil {
				return total, err
			}
			n, _, err := neo4j.GetRecordValue[int64](res.Records[0], "n")
			if err != nil {
				return total, err
			}
			total += n
			if n == 0 {
				break
			}
		}
	}
	return total, nil
}

// write runs one statement in a managed write transaction, which the driver
// retries on transient errors; every statement kgforge sends is idempotent.
func (l *Loader) write(ctx context.Context, q string, params map[string]any) error {
	s := l.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: l.cfg.Database, AccessMode: neo4j.AccessModeWrite})
	_, err := s.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return nil, err
		}
		return res.Consume(ctx)
	})
	return errors.Join(err, s.Close(ctx))
}

// Counts returns the number of kgforge nodes and relationships in the database.
func (l *Loader) Counts(ctx context.Context) (nodes, rels int64, err error) {
	res, err := neo4j.ExecuteQuery(ctx, l.driver,
		"MATCH (n:"+NodeLabel+") WITH count(n) AS nodes OPTIONAL MATCH (:"+NodeLabel+")-[r]->(:"+NodeLabel+") RETURN nodes, count(r) AS rels",
		nil, neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithDatabase(l.cfg.Database))
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

func labelKey(labels []string) string {
	var clean []string
	for _, l := range labels {
		if s := Label(l); s != "" && s != NodeLabel && !slices.Contains(clean, s) {
			clean = append(clean, s)
		}
	}
	slices.Sort(clean)
	return strings.Join(clean, ":")
}

func nodeProps(n kg.Node) map[string]any {
	p := map[string]any{"name": n.Name, "kind": string(n.Kind)}
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
		if _, taken := p[k]; !taken && k != "id" && k != "build_id" {
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
		if _, taken := p[k]; !taken && k != "id" && k != "build_id" {
			p[k] = v
		}
	}
	return p
}

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
	res, err := neo4j.ExecuteQuery(ctx, l.driver, q, params, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithDatabase(l.cfg.Database), neo4j.ExecuteQueryWithReadersRouting())
	if err != nil || len(res.Records) == 0 {
		return "", err
	}
	return fmt.Sprint(res.Records[0].Values[0]), nil
}
