// Package kg holds the data model that every kgforge stage speaks: sources,
// chunks, spans, mentions, triplets, nodes, edges, tables and merge decisions.
//
// It is a leaf: it imports nothing of kgforge. Identifiers are deterministic
// (see ID), so the same inputs, models and prompts give the same ids.
package kg
