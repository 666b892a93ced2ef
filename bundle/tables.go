package bundle

import (
	"encoding/json"
	"time"

	"kgforge/kg"

	"github.com/apache/arrow-go/v18/arrow"
)

// File names inside a bundle (format v1).
const (
	ManifestFile    = "manifest.json"
	NodesFile       = "nodes.parquet"
	EdgesFile       = "edges.parquet"
	ChunksFile      = "chunks.parquet"
	SourcesFile     = "sources.parquet"
	TripletsFile    = "triplets.parquet"
	MergesFile      = "merges.parquet"
	MergeLinksFile  = "merge_links.parquet"
	MergeReportFile = "merge_report.md"
	LinksFile       = "links.parquet"  // the link log (since 1.4)
	LinkReportFile  = "link_report.md" // the link log for a person (since 1.4)
	TablesFile      = "tables.json"
	PostingsFile    = "postings.parquet"      // the search index's terms (since 1.5)
	PostingDocsFile = "postings_docs.parquet" // the search index's documents (since 1.5)
	DataFile        = "data.duckdb"
)

var (
	str  = arrow.BinaryTypes.String
	i64  = arrow.PrimitiveTypes.Int64
	f64  = arrow.PrimitiveTypes.Float64
	strs = listOfStrings
)

func s(v any) string      { return v.(string) }
func n(v any) int         { return int(v.(int64)) }
func ss(v any) []string   { return v.([]string) }
func jsonOf(m any) string { b, _ := json.Marshal(m); return string(b) } // maps of strings always marshal

func mapOf(v any) map[string]string {
	var m map[string]string
	if err := json.Unmarshal([]byte(v.(string)), &m); err != nil || len(m) == 0 {
		return nil
	}
	return m
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

var nodeColumns = []column[kg.Node]{
	{"id", str, func(x *kg.Node) any { return x.ID }, func(x *kg.Node, v any) { x.ID = s(v) }},
	{"name", str, func(x *kg.Node) any { return x.Name }, func(x *kg.Node, v any) { x.Name = s(v) }},
	{"kind", str, func(x *kg.Node) any { return string(x.Kind) }, func(x *kg.Node, v any) { x.Kind = kg.NodeKind(s(v)) }},
	{"labels", strs, func(x *kg.Node) any { return nonNil(x.Labels) }, func(x *kg.Node, v any) { x.Labels = ss(v) }},
	{"description", str, func(x *kg.Node) any { return x.Description }, func(x *kg.Node, v any) { x.Description = s(v) }},
	{"aliases", strs, func(x *kg.Node) any { return nonNil(x.Aliases) }, func(x *kg.Node, v any) { x.Aliases = ss(v) }},
	{"chunk_ids", strs, func(x *kg.Node) any { return nonNil(x.ChunkIDs) }, func(x *kg.Node, v any) { x.ChunkIDs = ss(v) }},
	{"properties", str, func(x *kg.Node) any { return jsonOf(x.Properties) }, func(x *kg.Node, v any) { x.Properties = mapOf(v) }},
}

var edgeColumns = []column[kg.Edge]{
	{"id", str, func(x *kg.Edge) any { return x.ID }, func(x *kg.Edge, v any) { x.ID = s(v) }},
	{"src", str, func(x *kg.Edge) any { return x.Src }, func(x *kg.Edge, v any) { x.Src = s(v) }},
	{"dst", str, func(x *kg.Edge) any { return x.Dst }, func(x *kg.Edge, v any) { x.Dst = s(v) }},
	{"type", str, func(x *kg.Edge) any { return x.Type }, func(x *kg.Edge, v any) { x.Type = s(v) }},
	{"confidence", f64, func(x *kg.Edge) any { return x.Confidence }, func(x *kg.Edge, v any) { x.Confidence = v.(float64) }},
	{"evidence", str, func(x *kg.Edge) any { return x.Evidence }, func(x *kg.Edge, v any) { x.Evidence = s(v) }},
	{"chunk_ids", strs, func(x *kg.Edge) any { return nonNil(x.ChunkIDs) }, func(x *kg.Edge, v any) { x.ChunkIDs = ss(v) }},
	{"valid_from", str, func(x *kg.Edge) any { return x.ValidFrom }, func(x *kg.Edge, v any) { x.ValidFrom = s(v) }},
	{"valid_to", str, func(x *kg.Edge) any { return x.ValidTo }, func(x *kg.Edge, v any) { x.ValidTo = s(v) }},
	{"properties", str, func(x *kg.Edge) any { return jsonOf(x.Properties) }, func(x *kg.Edge, v any) { x.Properties = mapOf(v) }},
}

var chunkColumns = []column[kg.Chunk]{
	{"id", str, func(x *kg.Chunk) any { return x.ID }, func(x *kg.Chunk, v any) { x.ID = s(v) }},
	{"source_id", str, func(x *kg.Chunk) any { return x.SourceID }, func(x *kg.Chunk, v any) { x.SourceID = s(v) }},
	{"ordinal", i64, func(x *kg.Chunk) any { return int64(x.Ordinal) }, func(x *kg.Chunk, v any) { x.Ordinal = n(v) }},
	{"text", str, func(x *kg.Chunk) any { return x.Text }, func(x *kg.Chunk, v any) { x.Text = s(v) }},
	{"start", i64, func(x *kg.Chunk) any { return int64(x.Span.Start) }, func(x *kg.Chunk, v any) { x.Span.Start = n(v) }},
	{"end", i64, func(x *kg.Chunk) any { return int64(x.Span.End) }, func(x *kg.Chunk, v any) { x.Span.End = n(v) }},
	{"page", i64, func(x *kg.Chunk) any { return int64(x.Page) }, func(x *kg.Chunk, v any) { x.Page = n(v) }},
	{"section", str, func(x *kg.Chunk) any { return x.Section }, func(x *kg.Chunk, v any) { x.Section = s(v) }},
	{"tokens", i64, func(x *kg.Chunk) any { return int64(x.Tokens) }, func(x *kg.Chunk, v any) { x.Tokens = n(v) }},
	{"line_start", i64, func(x *kg.Chunk) any { return int64(x.LineStart) }, func(x *kg.Chunk, v any) { x.LineStart = n(v) }},
	{"line_end", i64, func(x *kg.Chunk) any { return int64(x.LineEnd) }, func(x *kg.Chunk, v any) { x.LineEnd = n(v) }},
	{"time_start", str, func(x *kg.Chunk) any { return x.TimeStart }, func(x *kg.Chunk, v any) { x.TimeStart = s(v) }},
	{"time_end", str, func(x *kg.Chunk) any { return x.TimeEnd }, func(x *kg.Chunk, v any) { x.TimeEnd = s(v) }},
}

var sourceColumns = []column[kg.Source]{
	{"id", str, func(x *kg.Source) any { return x.ID }, func(x *kg.Source, v any) { x.ID = s(v) }},
	{"uri", str, func(x *kg.Source) any { return x.URI }, func(x *kg.Source, v any) { x.URI = s(v) }},
	{"kind", str, func(x *kg.Source) any { return string(x.Kind) }, func(x *kg.Source, v any) { x.Kind = kg.SourceKind(s(v)) }},
	{"sha256", str, func(x *kg.Source) any { return x.SHA256 }, func(x *kg.Source, v any) { x.SHA256 = s(v) }},
	{"bytes", i64, func(x *kg.Source) any { return x.Bytes }, func(x *kg.Source, v any) { x.Bytes = v.(int64) }},
	{
		"modified", str, func(x *kg.Source) any { return x.Modified.UTC().Format(time.RFC3339Nano) },
		func(x *kg.Source, v any) { x.Modified, _ = time.Parse(time.RFC3339Nano, s(v)) },
	},
}

var tripletColumns = []column[kg.Triplet]{
	{"id", str, func(x *kg.Triplet) any { return x.ID }, func(x *kg.Triplet, v any) { x.ID = s(v) }},
	{"chunk_id", str, func(x *kg.Triplet) any { return x.ChunkID }, func(x *kg.Triplet, v any) { x.ChunkID = s(v) }},
	{"subject", str, func(x *kg.Triplet) any { return x.Subject.Surface }, func(x *kg.Triplet, v any) { x.Subject.Surface = s(v) }},
	{"subject_type", str, func(x *kg.Triplet) any { return x.Subject.Type }, func(x *kg.Triplet, v any) { x.Subject.Type = s(v) }},
	{"subject_start", i64, func(x *kg.Triplet) any { return int64(x.Subject.Span.Start) }, func(x *kg.Triplet, v any) { x.Subject.Span.Start = n(v) }},
	{"subject_end", i64, func(x *kg.Triplet) any { return int64(x.Subject.Span.End) }, func(x *kg.Triplet, v any) { x.Subject.Span.End = n(v) }},
	{"predicate", str, func(x *kg.Triplet) any { return x.Predicate }, func(x *kg.Triplet, v any) { x.Predicate = s(v) }},
	{"object", str, func(x *kg.Triplet) any { return x.Object.Surface }, func(x *kg.Triplet, v any) { x.Object.Surface = s(v) }},
	{"object_type", str, func(x *kg.Triplet) any { return x.Object.Type }, func(x *kg.Triplet, v any) { x.Object.Type = s(v) }},
	{"object_start", i64, func(x *kg.Triplet) any { return int64(x.Object.Span.Start) }, func(x *kg.Triplet, v any) { x.Object.Span.Start = n(v) }},
	{"object_end", i64, func(x *kg.Triplet) any { return int64(x.Object.Span.End) }, func(x *kg.Triplet, v any) { x.Object.Span.End = n(v) }},
	{"evidence", str, func(x *kg.Triplet) any { return x.Evidence }, func(x *kg.Triplet, v any) { x.Evidence = s(v) }},
	{"evidence_start", i64, func(x *kg.Triplet) any { return int64(x.EvidenceSpan.Start) }, func(x *kg.Triplet, v any) { x.EvidenceSpan.Start = n(v) }},
	{"evidence_end", i64, func(x *kg.Triplet) any { return int64(x.EvidenceSpan.End) }, func(x *kg.Triplet, v any) { x.EvidenceSpan.End = n(v) }},
	{"confidence", f64, func(x *kg.Triplet) any { return x.Confidence }, func(x *kg.Triplet, v any) { x.Confidence = v.(float64) }},
	{"valid_from", str, func(x *kg.Triplet) any { return x.ValidFrom }, func(x *kg.Triplet, v any) { x.ValidFrom = s(v) }},
	{"valid_to", str, func(x *kg.Triplet) any { return x.ValidTo }, func(x *kg.Triplet, v any) { x.ValidTo = s(v) }},
	{"model", str, func(x *kg.Triplet) any { return x.Model }, func(x *kg.Triplet, v any) { x.Model = s(v) }},
	{"prompt_version", str, func(x *kg.Triplet) any { return x.PromptVersion }, func(x *kg.Triplet, v any) { x.PromptVersion = s(v) }},
}

var mergeColumns = []column[kg.MergeDecision]{
	{"cluster_id", str, func(x *kg.MergeDecision) any { return x.ClusterID }, func(x *kg.MergeDecision, v any) { x.ClusterID = s(v) }},
	{"member", str, func(x *kg.MergeDecision) any { return x.Member }, func(x *kg.MergeDecision, v any) { x.Member = s(v) }},
	{"canonical", str, func(x *kg.MergeDecision) any { return x.Canonical }, func(x *kg.MergeDecision, v any) { x.Canonical = s(v) }},
	{"score", f64, func(x *kg.MergeDecision) any { return x.Score }, func(x *kg.MergeDecision, v any) { x.Score = v.(float64) }},
	{"rule", str, func(x *kg.MergeDecision) any { return x.Rule }, func(x *kg.MergeDecision, v any) { x.Rule = s(v) }},
	{"decided_by", str, func(x *kg.MergeDecision) any { return x.DecidedBy }, func(x *kg.MergeDecision, v any) { x.DecidedBy = s(v) }},
	{"member_type", str, func(x *kg.MergeDecision) any { return x.MemberType }, func(x *kg.MergeDecision, v any) { x.MemberType = s(v) }},
	{"band", str, func(x *kg.MergeDecision) any { return x.Band }, func(x *kg.MergeDecision, v any) { x.Band = s(v) }},
	{"signals", strs, func(x *kg.MergeDecision) any { return nonNil(x.Signals) }, func(x *kg.MergeDecision, v any) { x.Signals = ss(v) }},
	{"mentions", i64, func(x *kg.MergeDecision) any { return int64(x.Mentions) }, func(x *kg.MergeDecision, v any) { x.Mentions = n(v) }},
	{"evidence", strs, func(x *kg.MergeDecision) any { return nonNil(x.Evidence) }, func(x *kg.MergeDecision, v any) { x.Evidence = ss(v) }},
}

var mergeLinkColumns = []column[kg.MergeLink]{
	{"cluster_id", str, func(x *kg.MergeLink) any { return x.ClusterID }, func(x *kg.MergeLink, v any) { x.ClusterID = s(v) }},
	{"a", str, func(x *kg.MergeLink) any { return x.A }, func(x *kg.MergeLink, v any) { x.A = s(v) }},
	{"b", str, func(x *kg.MergeLink) any { return x.B }, func(x *kg.MergeLink, v any) { x.B = s(v) }},
	{"b_cluster_id", str, func(x *kg.MergeLink) any { return x.BCluster }, func(x *kg.MergeLink, v any) { x.BCluster = s(v) }},
	{"cosine", f64, func(x *kg.MergeLink) any { return x.Cosine }, func(x *kg.MergeLink, v any) { x.Cosine = v.(float64) }},
	{"signals", strs, func(x *kg.MergeLink) any { return nonNil(x.Signals) }, func(x *kg.MergeLink, v any) { x.Signals = ss(v) }},
	{"band", str, func(x *kg.MergeLink) any { return x.Band }, func(x *kg.MergeLink, v any) { x.Band = s(v) }},
	{"rule", str, func(x *kg.MergeLink) any { return x.Rule }, func(x *kg.MergeLink, v any) { x.Rule = s(v) }},
	{"decision", str, func(x *kg.MergeLink) any { return x.Decision }, func(x *kg.MergeLink, v any) { x.Decision = s(v) }},
	{"doubt", f64, func(x *kg.MergeLink) any { return x.Doubt }, func(x *kg.MergeLink, v any) { x.Doubt = v.(float64) }},
	{"score", f64, func(x *kg.MergeLink) any { return x.Score }, func(x *kg.MergeLink, v any) { x.Score = v.(float64) }},
}

var linkColumns = []column[kg.Link]{
	{"id", str, func(x *kg.Link) any { return x.ID }, func(x *kg.Link, v any) { x.ID = s(v) }},
	{"src", str, func(x *kg.Link) any { return x.Src }, func(x *kg.Link, v any) { x.Src = s(v) }},
	{"src_name", str, func(x *kg.Link) any { return x.SrcName }, func(x *kg.Link, v any) { x.SrcName = s(v) }},
	{"dst", str, func(x *kg.Link) any { return x.Dst }, func(x *kg.Link, v any) { x.Dst = s(v) }},
	{"target", str, func(x *kg.Link) any { return x.Target }, func(x *kg.Link, v any) { x.Target = s(v) }},
	{"type", str, func(x *kg.Link) any { return x.Type }, func(x *kg.Link, v any) { x.Type = s(v) }},
	{"score", f64, func(x *kg.Link) any { return x.Score }, func(x *kg.Link, v any) { x.Score = v.(float64) }},
	{"signals", strs, func(x *kg.Link) any { return nonNil(x.Signals) }, func(x *kg.Link, v any) { x.Signals = ss(v) }},
	{"band", str, func(x *kg.Link) any { return x.Band }, func(x *kg.Link, v any) { x.Band = s(v) }},
	{"rule", str, func(x *kg.Link) any { return x.Rule }, func(x *kg.Link, v any) { x.Rule = s(v) }},
	{"decided_by", str, func(x *kg.Link) any { return x.DecidedBy }, func(x *kg.Link, v any) { x.DecidedBy = s(v) }},
	{"evidence", strs, func(x *kg.Link) any { return nonNil(x.Evidence) }, func(x *kg.Link, v any) { x.Evidence = ss(v) }},
}

// addedColumns are the columns each file gained after format 1.0: a reader
// fills them with zero values when an older bundle lacks them.
var addedColumns = map[string][]string{
	ChunksFile:     {"tokens", "line_start", "line_end", "time_start", "time_end"},
	MergesFile:     {"member_type", "band", "signals", "mentions", "evidence"},
	MergeLinksFile: {"score"},
}
