package main

import (
	"context"
	"fmt"
	"slices"

	"kgforge/bundle"
	"kgforge/kg"
)

// Data is what the scorer reads of a bundle.
type Data struct {
	Nodes      []kg.Node
	Edges      []kg.Edge
	Chunks     []kg.Chunk
	SourceURI  map[string]string // source id → URI
	Triplets   []kg.Triplet
	Merges     []kg.MergeDecision
	MergeLinks []kg.MergeLink
	Links      []kg.Link // nil when the bundle has no link log
	HasLinkLog bool
}

// linkReader is the bundle's reader of links.parquet, where the bundle
// format has one.
type linkReader interface {
	Links(ctx context.Context, fn func(kg.Link) error) error
}

// ReadBundle reads the graph, chunks, extraction, merge log and link log of
// the bundle at dir.
func ReadBundle(ctx context.Context, dir string) (d *Data, err error) {
	b, err := bundle.Open(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := b.Close(); err == nil {
			err = cerr
		}
	}()
	d = &Data{SourceURI: map[string]string{}}
	for _, s := range b.Manifest.Sources {
		d.SourceURI[s.ID] = s.URI
	}
	reads := []func() error{
		func() error { return b.Nodes(ctx, collect(&d.Nodes)) },
		func() error { return b.Edges(ctx, collect(&d.Edges)) },
		func() error { return b.Chunks(ctx, collect(&d.Chunks)) },
		func() error { return b.Triplets(ctx, collect(&d.Triplets)) },
		func() error { return b.Merges(ctx, collect(&d.Merges)) },
		func() error { return b.MergeLinks(ctx, collect(&d.MergeLinks)) },
	}
	if lr, ok := any(b).(linkReader); ok && slices.Contains(b.Files(), "links.parquet") {
		d.HasLinkLog = true
		reads = append(reads, func() error { return lr.Links(ctx, collect(&d.Links)) })
	}
	for _, read := range reads {
		if err := read(); err != nil {
			return nil, fmt.Errorf("read bundle %s: %w", dir, err)
		}
	}
	return d, nil
}

func collect[T any](list *[]T) func(T) error {
	return func(v T) error {
		*list = append(*list, v)
		return nil
	}
}
