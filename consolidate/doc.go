// Package consolidate turns extracted triplets, chunks and profiled tables
// into one graph: it resolves mentions of the same thing into one node,
// records every merge in the merge log, normalises predicates, and adds the
// document, chunk, table and column nodes that tie facts to their sources
// and to the data layer.
//
// This version merges names that are equal after folding case and white
// space; every merge is still logged with its rule, so the log and the
// review page stay the same when embedding-based resolution replaces it.
package consolidate
