package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"kgforge/bundle"
	"kgforge/kg"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// An incremental load (docs/neo4j.md) compares the bundle with what the
// graph's current build holds — node and relationship ids and the content
// hash (HashProperty) every one of them carries — and applies the
// difference to the current build's nodes in one write transaction: a
// failure at any point rolls all of it back, so the previous graph stays
// whole and current, and the record of the build names the bundle only when
// the transaction committed.

// errTooMany stops a comparison that found more than Config.MaxChanges.
var errTooMany = errors.New("too many changes for an incremental load")

// diff is what an incremental load changes in the nodes of build base.
type diff struct {
	base        string
	nodesAdd    []map[string]any // rows with their labels
	nodesChange []map[string]any // rows with their labels and the labels they lose
	nodesRemove []string         // ids
	relsAdd     []map[string]any // rows with their type; a changed relationship is removed and added
	relsRemove  []map[string]any // id and src
	changes     Changes
	limit       int
}

// size is the number of nodes and relationships the diff adds, removes or
// changes.
func (d *diff) size() int {
	n, r := d.changes.Nodes, d.changes.Relationships
	return n.Added + n.Removed + n.Changed + r.Added + r.Removed + r.Changed
}

func (d *diff) check() error {
	if d.size() > d.limit {
		return errTooMany
	}
	return nil
}

// plan chooses how to load b over the current build cur: incrementally,
// with the diff it returns, when the current build carries content hashes
// and the bundle changes at most Config.MaxChanges of its nodes and
// relationships; in full (nil) otherwise, or when Config.Full asks for it.
// The reason is for the stats and the log.
func (l *Loader) plan(ctx context.Context, b *bundle.Bundle, cur current) (_ *diff, reason string, _ error) {
	switch {
	case l.cfg.Full:
		return nil, "a full load was asked for", nil
	case cur.id == "":
		return nil, "the graph has no current build", nil
	case !cur.hashed:
		return nil, fmt.Sprintf("the current build %s was loaded without content hashes (by an older kgforge)", cur.id), nil
	}
	limit := cmp.Or(l.cfg.MaxChanges, DefaultMaxChanges)
	d, err := l.diff(ctx, b, cur.id, limit)
	if errors.Is(err, errTooMany) {
		return nil, fmt.Sprintf("more than %d nodes and relationships changed (the incremental limit)", limit), nil
	}
	if err != nil {
		return nil, "", err
	}
	return d, fmt.Sprintf("%d nodes and relationships to add, remove or change, at most %d (the incremental limit)", d.size(), limit), nil
}

// graphNode is what the comparison needs of a node in Neo4j.
type graphNode struct{ hash, key string }

// graphRel is what the comparison needs of a relationship in Neo4j: its
// start node finds it again.
type graphRel struct{ hash, src string }

// diff compares the bundle with the nodes and relationships of build base,
// stopping with errTooMany past limit changes.
func (l *Loader) diff(ctx context.Context, b *bundle.Bundle, base string, limit int) (*diff, error) {
	gn, err := l.graphNodes(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("read the nodes of build %s: %w", base, err)
	}
	gr, err := l.graphRels(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("read the relationships of build %s: %w", base, err)
	}
	d := &diff{base: base, limit: limit}
	err = b.Nodes(ctx, func(n kg.Node) error {
		key, row := nodeRow(n)
		old, ok := gn[n.ID]
		delete(gn, n.ID)
		switch {
		case !ok:
			d.changes.Nodes.Added++
			row["labels"] = splitKey(key)
			d.nodesAdd = append(d.nodesAdd, row)
		case old.hash == rowHash(row):
			d.changes.Nodes.Unchanged++
			return nil
		default:
			d.changes.Nodes.Changed++
			row["labels"], row["gone"] = splitKey(key), lost(old.key, key)
			d.nodesChange = append(d.nodesChange, row)
		}
		return d.check()
	})
	if err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(mapKeys(gn)) {
		d.changes.Nodes.Removed++
		d.nodesRemove = append(d.nodesRemove, id)
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	err = b.Edges(ctx, func(e kg.Edge) error {
		typ, row := edgeRow(e)
		old, ok := gr[e.ID]
		delete(gr, e.ID)
		switch {
		case !ok:
			d.changes.Relationships.Added++
		case old.hash == rowHash(row):
			d.changes.Relationships.Unchanged++
			return nil
		default: // the type or an end may differ: replace it
			d.changes.Relationships.Changed++
			d.relsRemove = append(d.relsRemove, map[string]any{"id": e.ID, "src": old.src})
		}
		row["type"] = typ
		d.relsAdd = append(d.relsAdd, row)
		return d.check()
	})
	if err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(mapKeys(gr)) {
		d.changes.Relationships.Removed++
		d.relsRemove = append(d.relsRemove, map[string]any{"id": id, "src": gr[id].src})
	}
	return d, d.check()
}

func rowHash(row map[string]any) string {
	h, _ := row["props"].(map[string]any)[HashProperty].(string)
	return h
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// graphNodes reads the id, content hash and label key of every node of a
// build.
func (l *Loader) graphNodes(ctx context.Context, build string) (map[string]graphNode, error) {
	var out map[string]graphNode
	keys := map[string]string{} // one string per label key
	err := l.stream(ctx, "MATCH (n:"+NodeLabel+" {build_id: $build}) RETURN n.id AS id, n."+HashProperty+" AS h, labels(n) AS l",
		map[string]any{"build": build}, func() { out = map[string]graphNode{} }, func(r *neo4j.Record) error {
			id, _ := r.Values[0].(string)
			h, _ := r.Values[1].(string)
			labels, _ := r.Values[2].([]any)
			key, err := storedKey(id, labels)
			if err != nil {
				return err
			}
			if k, ok := keys[key]; ok {
				key = k
			} else {
				keys[key] = key
			}
			out[id] = graphNode{hash: h, key: key}
			return nil
		})
	return out, err
}

// graphRels reads the id, content hash and start node of every
// relationship between nodes of a build.
func (l *Loader) graphRels(ctx context.Context, build string) (map[string]graphRel, error) {
	var out map[string]graphRel
	err := l.stream(ctx, "MATCH (a:"+NodeLabel+" {build_id: $build})-[r]->(:"+NodeLabel+" {build_id: $build}) RETURN r.id AS id, r."+HashProperty+" AS h, a.id AS src",
		map[string]any{"build": build}, func() { out = map[string]graphRel{} }, func(r *neo4j.Record) error {
			id, _ := r.Values[0].(string)
			h, _ := r.Values[1].(string)
			src, _ := r.Values[2].(string)
			out[id] = graphRel{hash: h, src: src}
			return nil
		})
	return out, err
}

// storedKey is labelKey for the labels a node has in Neo4j. They were
// written by kgforge, but they go back into a statement (REMOVE n:...), so
// each must still be a strict identifier.
func storedKey(id string, labels []any) (string, error) {
	var clean []string
	for _, x := range labels {
		s, _ := x.(string)
		if s == NodeLabel {
			continue
		}
		if s == "" || Label(s) != s {
			return "", fmt.Errorf("node %s has the label %q, which kgforge never writes", id, s)
		}
		clean = append(clean, s)
	}
	slices.Sort(clean)
	return strings.Join(clean, ":"), nil
}

// stream runs a read query and hands each record to fn; reset starts over
// when the driver retries the transaction.
func (l *Loader) stream(ctx context.Context, q string, params map[string]any, reset func(), fn func(*neo4j.Record) error) error {
	s := l.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: l.cfg.Database, AccessMode: neo4j.AccessModeRead})
	_, err := neo4j.ExecuteRead(ctx, s, func(tx neo4j.ManagedTransaction) (bool, error) {
		reset()
		res, err := tx.Run(ctx, q, params)
		if err != nil {
			return false, err
		}
		for res.Next(ctx) {
			if err := fn(res.Record()); err != nil {
				return false, err
			}
		}
		return true, res.Err()
	})
	return errors.Join(err, s.Close(ctx))
}

// loadIncremental applies d to the current build in one transaction, then
// removes stale builds. A connection lost during the commit leaves it
// unknown whether the transaction committed: the record of the build says
// (it names the bundle only if it did), and the diff is applied again if not.
func (l *Loader) loadIncremental(ctx context.Context, b *bundle.Bundle, cur current, d *diff, st Stats) (Stats, error) {
	build, graph := b.Manifest.BuildID, st.Graph
	st.Mode, st.NodesBuild, st.Changes = ModeIncremental, cur.id, &d.changes
	st.Nodes, st.Relationships = int(b.Manifest.Counts["nodes"]), int(b.Manifest.Counts["edges"])
	fail := func(what string, err error) (Stats, error) {
		return st, fmt.Errorf("load bundle %s into neo4j incrementally: %s: %w", b.Dir, what, err)
	}
	start := time.Now()
	deadline := time.Now().Add(l.retryTime())
	delay := 100 * time.Millisecond
	for {
		err := l.apply(ctx, d, b, graph)
		var ce *neo4j.ConnectivityError
		if err == nil || !errors.As(err, &ce) || time.Now().Add(delay).After(deadline) {
			if err != nil {
				return fail("apply the changes to build "+cur.id, err)
			}
			break
		}
		l.retries.Add(1)
		l.log.Warn("neo4j connection lost during the incremental load; checking whether it committed", "err", err, "after", delay)
		select {
		case <-ctx.Done():
			return fail("apply the changes to build "+cur.id, errors.Join(err, ctx.Err()))
		case <-time.After(delay/2 + rand.N(delay/2)):
		}
		delay = min(2*delay, 5*time.Second)
		if holds, herr := l.Holds(ctx, graph); herr == nil && holds == build {
			break
		}
	}
	st.ApplyTime = time.Since(start)
	var err error
	if st.StaleRemoved, err = l.removeStale(ctx, graph, cur.id); err != nil {
		return fail("remove stale builds", err)
	}
	l.log.Info("neo4j loaded incrementally", "graph", graph, "build_id", build, "nodes_build_id", cur.id, "previous", cur.bundle,
		"nodes_added", d.changes.Nodes.Added, "nodes_removed", d.changes.Nodes.Removed, "nodes_changed", d.changes.Nodes.Changed,
		"relationships_added", d.changes.Relationships.Added, "relationships_removed", d.changes.Relationships.Removed,
		"relationships_changed", d.changes.Relationships.Changed)
	return st, nil
}

// apply writes d in one write transaction, which ends by checking the
// counts of the build against the bundle and recording that the build
// holds the bundle.
func (l *Loader) apply(ctx context.Context, d *diff, b *bundle.Bundle, graph string) error {
	s := l.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: l.cfg.Database, AccessMode: neo4j.AccessModeWrite})
	_, err := neo4j.ExecuteWrite(ctx, s, func(tx neo4j.ManagedTransaction) (bool, error) {
		return true, l.applyTx(ctx, tx, d, b, graph)
	})
	return errors.Join(err, s.Close(ctx))
}

// The node statements of an incremental load: row.labels and row.gone are
// lists of labels that labelKey made (strict identifiers), given as
// parameters.
const (
	matchNode = "UNWIND $rows AS row MATCH (n:" + NodeLabel + " {id: row.id, build_id: $build}) "
	setNode   = "SET n = row.props, n.id = row.id, n.build_id = $build"
)

func (l *Loader) applyTx(ctx context.Context, tx neo4j.ManagedTransaction, d *diff, b *bundle.Bundle, graph string) error {
	bs := l.cfg.BatchSize
	steps := []func() error{
		func() error {
			return batches(ctx, l, tx, "remove relationships", "UNWIND $rows AS row MATCH (:"+NodeLabel+" {id: row.src, build_id: $build})-[r]->() WHERE r.id = row.id "+
				"DELETE r RETURN count(*) AS n", d.base, d.relsRemove, bs)
		},
		func() error {
			return batches(ctx, l, tx, "remove nodes", "UNWIND $rows AS id MATCH (n:"+NodeLabel+" {id: id, build_id: $build}) DETACH DELETE n RETURN count(*) AS n",
				d.base, d.nodesRemove, bs)
		},
		func() error { // labels and types are dynamic (Neo4j 5.26): one plan for every label set
			return batches(ctx, l, tx, "add nodes", "UNWIND $rows AS row CREATE (n:"+NodeLabel+") "+setNode+" SET n:$(row.labels) RETURN count(*) AS n",
				d.base, d.nodesAdd, bs)
		},
		func() error {
			return batches(ctx, l, tx, "change nodes", matchNode+setNode+" REMOVE n:$(row.gone) SET n:$(row.labels) RETURN count(*) AS n",
				d.base, d.nodesChange, bs)
		},
		func() error { // all types in one statement (a dynamic type, Neo4j 5.26): one plan, not one per type
			q := "UNWIND $rows AS row MATCH (a:" + NodeLabel + " {id: row.src, build_id: $build}) MATCH (b:" + NodeLabel + " {id: row.dst, build_id: $build}) " +
				"CREATE (a)-[r:$(row.type)]->(b) SET r = row.props, r.id = row.id, r.build_id = $build RETURN count(r) AS n"
			return batches(ctx, l, tx, "add relationships", q, d.base, d.relsAdd, bs)
		},
		func() error { return l.checkAndRecord(ctx, tx, d, b, graph) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return l.faultAt("commit")
}

// checkAndRecord counts the build inside the transaction, compares the
// counts with the bundle's, and records on the build that it holds the
// bundle (only if it is still the graph's current build).
func (l *Loader) checkAndRecord(ctx context.Context, tx neo4j.ManagedTransaction, d *diff, b *bundle.Bundle, graph string) error {
	if err := l.faultAt("count"); err != nil {
		return err
	}
	res, err := tx.Run(ctx, "MATCH (n:"+NodeLabel+" {build_id: $build}) WITH count(n) AS nodes "+
		"OPTIONAL MATCH (:"+NodeLabel+" {build_id: $build})-[r]->(:"+NodeLabel+" {build_id: $build}) RETURN nodes, count(r) AS rels",
		map[string]any{"build": d.base})
	if err != nil {
		return fmt.Errorf("count build: %w", err)
	}
	rec, err := res.Single(ctx)
	if err != nil {
		return fmt.Errorf("count build: %w", err)
	}
	nodes, _ := rec.Values[0].(int64)
	rels, _ := rec.Values[1].(int64)
	if nodes != b.Manifest.Counts["nodes"] || rels != b.Manifest.Counts["edges"] {
		return fmt.Errorf("check: build %s would hold %d nodes and %d relationships, the bundle has %d and %d (duplicate ids in the bundle?)",
			d.base, nodes, rels, b.Manifest.Counts["nodes"], b.Manifest.Counts["edges"])
	}
	if err := l.faultAt("record"); err != nil {
		return err
	}
	res, err = tx.Run(ctx, "MATCH (b:"+BuildLabel+" {id: $build, graph: $graph}) WHERE b.current "+
		"SET b.bundle = $bundle, b.loaded = datetime(), b.created = $created, b.nodes = $nodes, b.relationships = $rels, b.mode = $mode, b.hashed = true "+
		"RETURN count(b) AS n",
		map[string]any{
			"build": d.base, "graph": graph, "bundle": b.Manifest.BuildID, "created": b.Manifest.Created.UTC().Format(time.RFC3339),
			"nodes": nodes, "rels": rels, "mode": ModeIncremental,
		})
	if err != nil {
		return fmt.Errorf("record the build: %w", err)
	}
	if rec, err = res.Single(ctx); err != nil {
		return fmt.Errorf("record the build: %w", err)
	}
	if n, _ := rec.Values[0].(int64); n != 1 {
		return fmt.Errorf("record the build: build %s is no longer the current build of graph %q (another load ran at the same time?)", d.base, graph)
	}
	return nil
}

// splitKey returns the labels of a label key.
func splitKey(key string) []string {
	if key == "" {
		return []string{}
	}
	return strings.Split(key, ":")
}

// lost returns the labels of key old that key new lacks.
func lost(old, next string) []string {
	keep := splitKey(next)
	return slices.DeleteFunc(splitKey(old), func(x string) bool { return slices.Contains(keep, x) })
}

// batches runs q in the transaction over rows, size at a time; each batch
// must return n equal to its number of rows (every row matched once): a
// mismatch means the graph is not what the comparison read.
func batches[T any](ctx context.Context, l *Loader, tx neo4j.ManagedTransaction, step, q, build string, rows []T, size int) error {
	for len(rows) > 0 {
		batch := rows[:min(size, len(rows))]
		rows = rows[len(batch):]
		if err := l.faultAt(step); err != nil {
			return err
		}
		res, err := tx.Run(ctx, q, map[string]any{"rows": batch, "build": build})
		if err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		if n, _ := rec.Values[0].(int64); n != int64(len(batch)) {
			return fmt.Errorf("%s: %d of %d rows matched in build %s (is another load writing the graph?)", step, n, len(batch), build)
		}
	}
	return nil
}

// faultAt calls the test double Loader.fault, if a test set one.
func (l *Loader) faultAt(step string) error {
	if l.fault == nil {
		return nil
	}
	return l.fault(step)
}
