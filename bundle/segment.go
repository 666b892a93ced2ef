package bundle

import (
	"context"
	"slices"

	"kgforge/kg"
)

// The engine (package stages) keeps what each unit of a build produced as a
// segment in its state directory. The Parquet files of a segment are
// written and read here, since this package owns the Parquet writer; unlike
// a bundle's files they keep every field of their kg type (a triplet's
// mentions keep their ids and descriptions), so that a segment read back
// is what the unit made.

// mentionFields are the columns of a mention under a prefix.
func mentionFields[T any](prefix string, m func(*T) *kg.Mention) []column[T] {
	return []column[T]{
		{prefix + "id", str, func(x *T) any { return m(x).ID }, func(x *T, v any) { m(x).ID = s(v) }},
		{prefix + "chunk_id", str, func(x *T) any { return m(x).ChunkID }, func(x *T, v any) { m(x).ChunkID = s(v) }},
		{prefix + "description", str, func(x *T) any { return m(x).Description }, func(x *T, v any) { m(x).Description = s(v) }},
	}
}

var segmentTripletColumns = slices.Concat(tripletColumns,
	mentionFields("subject_", func(x *kg.Triplet) *kg.Mention { return &x.Subject }),
	mentionFields("object_", func(x *kg.Triplet) *kg.Mention { return &x.Object }))

var mentionColumns = slices.Concat(mentionFields("", func(x *kg.Mention) *kg.Mention { return x }), []column[kg.Mention]{
	{"surface", str, func(x *kg.Mention) any { return x.Surface }, func(x *kg.Mention, v any) { x.Surface = s(v) }},
	{"type", str, func(x *kg.Mention) any { return x.Type }, func(x *kg.Mention, v any) { x.Type = s(v) }},
	{"start", i64, func(x *kg.Mention) any { return int64(x.Span.Start) }, func(x *kg.Mention, v any) { x.Span.Start = n(v) }},
	{"end", i64, func(x *kg.Mention) any { return int64(x.Span.End) }, func(x *kg.Mention, v any) { x.Span.End = n(v) }},
})

// WriteChunks writes chunks to path as Parquet, fsynced.
func WriteChunks(path string, rows []kg.Chunk) error { return writeParquet(path, chunkColumns, rows) }

// ReadChunks streams the chunks of a file WriteChunks wrote.
func ReadChunks(ctx context.Context, path string, fn func(kg.Chunk) error) error {
	return readParquet(ctx, path, chunkColumns, fn)
}

// WriteTriplets writes triplets to path as Parquet, fsynced, with every
// field of their mentions.
func WriteTriplets(path string, rows []kg.Triplet) error {
	return writeParquet(path, segmentTripletColumns, rows)
}

// ReadTriplets streams the triplets of a file WriteTriplets wrote.
func ReadTriplets(ctx context.Context, path string, fn func(kg.Triplet) error) error {
	return readParquet(ctx, path, segmentTripletColumns, fn)
}

// WriteMentions writes mentions to path as Parquet, fsynced.
func WriteMentions(path string, rows []kg.Mention) error {
	return writeParquet(path, mentionColumns, rows)
}

// ReadMentions streams the mentions of a file WriteMentions wrote.
func ReadMentions(ctx context.Context, path string, fn func(kg.Mention) error) error {
	return readParquet(ctx, path, mentionColumns, fn)
}
