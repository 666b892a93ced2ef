// Package load loads a bundle into Neo4j: constraints first, then nodes by
// label set and relationships by type in UNWIND batches through managed
// write transactions. Every write MERGEs on ids and stamps the build id, so
// loading the same bundle twice changes nothing and a retried transaction is
// harmless; after a successful load, what earlier builds left and this one
// lacks is removed.
//
// Labels and relationship types come from LLM output and cannot be query
// parameters: Label and RelType reduce them to a strict identifier form
// before they reach Cypher.
//
// It is the only package that imports the Neo4j driver.
package load
