package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// LockLabel is the label of the node a load of a graph creates, and never
// commits, for as long as it runs: the unique constraint on its graph
// property makes a second load of the same graph wait for the first
// transaction to end, so two loads never write one graph at once (each
// would remove the other's staged build). The lock is the transaction's:
// Neo4j drops it when the transaction ends, however the load ends (a
// killed process closes its connection), so it is never stuck.
const LockLabel = "KGLoadLock"

// DefaultLockWait is how long a load waits for another load of the same
// graph before it fails with ErrGraphBusy.
const DefaultLockWait = 5 * time.Second

// lockMetaKey is the transaction metadata key that names the graph a
// lock's transaction holds; SHOW TRANSACTIONS finds the holder by it.
const lockMetaKey = "kgforge_load_graph"

// ErrGraphBusy means another load holds the graph's lock.
var ErrGraphBusy = errors.New("graph is being loaded by another load")

// Holder names the load that holds a graph's lock, as its lock
// transaction's metadata says.
type Holder struct {
	BuildID string
	Host    string
	PID     int64
	Started string
}

// GraphBusyError is returned by Load and Drop when another load of the same
// graph runs. It wraps ErrGraphBusy.
type GraphBusyError struct {
	Graph  string
	Holder Holder // empty when the server did not say
}

func (e *GraphBusyError) Error() string {
	who := "another load"
	if h := e.Holder; h.BuildID != "" {
		who = fmt.Sprintf("the load of build %s (host %s, pid %d, since %s)", h.BuildID, h.Host, h.PID, h.Started)
	}
	return fmt.Sprintf("neo4j graph %q is being loaded by %s; one load per graph at a time: wait for it to finish or stop it", e.Graph, who)
}

func (e *GraphBusyError) Unwrap() error { return ErrGraphBusy }

// graphLock is a held lock on a graph: an open transaction.
type graphLock struct {
	sess neo4j.SessionWithContext
	tx   neo4j.ExplicitTransaction
}

// lockGraph takes the lock of graph for a load of build, waiting up to
// the Loader's lock wait for a load that holds it; then it returns a
// *GraphBusyError. The caller releases the lock.
func (l *Loader) lockGraph(ctx context.Context, graph, build string) (*graphLock, error) {
	if err := l.write(ctx, "CREATE CONSTRAINT kgloadlock_graph IF NOT EXISTS FOR (k:"+LockLabel+") REQUIRE k.graph IS UNIQUE", nil); err != nil {
		return nil, fmt.Errorf("lock neo4j graph %q: %w", graph, err)
	}
	host, _ := os.Hostname()
	meta := map[string]any{
		lockMetaKey: graph, "build_id": build, "host": host, "pid": os.Getpid(),
		"started": time.Now().UTC().Format(time.RFC3339),
	}
	wait, cancel := context.WithTimeout(ctx, cmp.Or(l.lockWait, DefaultLockWait))
	defer cancel()
	s := l.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: l.cfg.Database, AccessMode: neo4j.AccessModeWrite})
	tx, err := s.BeginTransaction(wait, neo4j.WithTxMetadata(meta))
	if err == nil {
		var res neo4j.ResultWithContext
		res, err = tx.Run(wait, "MERGE (k:"+LockLabel+" {graph: $graph}) SET k.build = $build", map[string]any{"graph": graph, "build": build})
		if err == nil {
			_, err = res.Consume(wait)
		}
	}
	if err == nil {
		return &graphLock{sess: s, tx: tx}, nil
	}
	// A wait cut short closes the connection, and with it the waiting
	// transaction, which the server then ends.
	err = errors.Join(err, s.Close(context.WithoutCancel(ctx)))
	if ctx.Err() == nil && wait.Err() != nil {
		return nil, &GraphBusyError{Graph: graph, Holder: l.loadHolder(ctx, graph, build)}
	}
	return nil, fmt.Errorf("lock neo4j graph %q: %w", graph, err)
}

// loadHolder reads who holds the lock of graph from the metadata of its
// transaction: the oldest lock transaction of the graph but those of the
// waiting load's own build (whose given-up wait the server may not have
// ended yet); an empty Holder when the server does not say (a user may
// see only the transactions of its own).
func (l *Loader) loadHolder(ctx context.Context, graph, waiting string) Holder {
	res, err := l.read(ctx, "SHOW TRANSACTIONS YIELD metaData, startTime WHERE metaData."+lockMetaKey+" = $graph AND metaData.build_id <> $waiting RETURN metaData ORDER BY startTime LIMIT 1",
		map[string]any{"graph": graph, "waiting": waiting})
	if err != nil || len(res.Records) == 0 {
		return Holder{}
	}
	m, _ := res.Records[0].Values[0].(map[string]any)
	h := Holder{}
	h.BuildID, _ = m["build_id"].(string)
	h.Host, _ = m["host"].(string)
	h.PID, _ = m["pid"].(int64)
	h.Started, _ = m["started"].(string)
	return h
}

// release ends the lock's transaction, which writes nothing: the lock node
// was never committed. A connection lost meanwhile ended it already; that
// is said in the log, since a load may then have run beside this one.
func (g *graphLock) release(ctx context.Context, l *Loader, graph string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := errors.Join(g.tx.Rollback(ctx), g.sess.Close(ctx)); err != nil {
		l.log.Warn("neo4j: the graph's load lock ended before the load did (connection lost?)", "graph", graph, "err", err)
	}
}
