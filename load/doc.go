// Package load loads a bundle into Neo4j (docs/neo4j.md): constraints first,
// then nodes by label set and relationships by type in UNWIND batches
// through managed write transactions, stamped with the build id and staged
// beside the graph's current build; one small transaction then makes the
// new build current, and the builds before it are removed. A load that
// fails before the switch leaves the previous build current and whole, and
// never blocks the next load: that one resumes the build, or removes it.
// A fresh build is written with CREATE; a resumed build, and any batch
// retried after its commit's answer was lost, with MERGE on ids, so nothing
// is written twice and loading the same bundle again changes nothing.
// One load per graph runs at a time (lock.go): a load holds the graph's
// lock, an uncommitted transaction, and a second one fails with
// ErrGraphBusy.
//
// When it can, a load is incremental instead (incremental.go): it compares
// the bundle with the current build by id and content hash (HashProperty,
// on every node and relationship) and applies only what was added, removed
// and changed, in one transaction that a failure rolls back whole. It is
// full when Config.Full asks for it, on a graph's first load, over a build
// loaded without hashes, and past Config.MaxChanges changes.
//
// Labels and relationship types come from LLM output and cannot be query
// parameters: Label and RelType reduce them to a strict identifier form
// before they reach Cypher, and NodeTypeLabel and EdgeType keep them off
// the names kgforge reserves (KGNode, KGBuild, the label of each node kind,
// the structural relationship types).
//
// It is the only package that imports the Neo4j driver.
package load
