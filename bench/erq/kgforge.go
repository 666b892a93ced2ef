package main

import (
	"context"
	"fmt"

	"kgforge/consolidate/resolve"
)

// kgforgeResolver returns kgforge's own entity resolution
// (kgforge/consolidate/resolve with cfg) as a Method, to be compared with
// the baselines in the same run. It and fit.go are the places that know
// that package.
//
// Each record becomes one resolve.Entity: Key is the record id, Vector the
// embedding of the name that the baselines use too; Description (a second
// signal of the score, and what chooses canonical names), Mentions and
// Neighbours (the names it is related to: PATSTAT's co-inventors,
// DBLP-ACM's authors) go through. Evidence, the number of grounded facts
// of an entity, is 0: the benchmark sets have names, not facts.
// Record.Context has no field to go to and is left out.
func kgforgeResolver(name string, cfg resolve.Config) Method {
	return Method{Name: name, Vectors: true, Resolve: func(ctx context.Context, records []Record) ([]int, error) {
		res, err := resolve.Resolve(ctx, entitiesOf(records), cfg)
		if err != nil {
			return nil, fmt.Errorf("resolve: %w", err)
		}
		clusters := make([][]string, len(res.Clusters))
		for i, c := range res.Clusters {
			clusters[i] = c.Members
		}
		return labelsFromClusters(records, clusters)
	}}
}

// entitiesOf makes each record a resolve.Entity (see kgforgeResolver).
func entitiesOf(records []Record) []resolve.Entity {
	ents := make([]resolve.Entity, len(records))
	for i, r := range records {
		ents[i] = resolve.Entity{
			Key: r.ID, Name: r.Name, Type: r.Type, Description: r.Description,
			Mentions: r.Mentions, Vector: r.Vector, Neighbours: r.Neighbours,
		}
	}
	return ents
}

// labelsFromClusters turns a resolver's clusters of record ids into labels
// in record order. A record in no cluster is an entity of its own; an id that
// is not a record's, or that is in two clusters, is an error.
func labelsFromClusters(records []Record, clusters [][]string) ([]int, error) {
	index := make(map[string]int, len(records))
	for i, r := range records {
		if _, dup := index[r.ID]; dup {
			return nil, fmt.Errorf("record id %s twice in one problem", r.ID)
		}
		index[r.ID] = i
	}
	labels := make([]int, len(records))
	for i := range labels {
		labels[i] = -1
	}
	next := 0
	for _, c := range clusters {
		if len(c) == 0 {
			continue
		}
		for _, id := range c {
			i, ok := index[id]
			if !ok {
				return nil, fmt.Errorf("resolver returned id %s, which is no record of the problem", id)
			}
			if labels[i] >= 0 {
				return nil, fmt.Errorf("resolver put id %s in two clusters", id)
			}
			labels[i] = next
		}
		next++
	}
	for i := range labels {
		if labels[i] < 0 {
			labels[i] = next
			next++
		}
	}
	return labels, nil
}
