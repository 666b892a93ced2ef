package kg

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"
)

// ErrRejected marks an item-level failure: one source, chunk or triplet that
// cannot be used. The runner counts it, records it in the run report and goes
// on; any other error stops the run.
var ErrRejected = errors.New("rejected")

// ID returns a deterministic identifier for the given parts: the first 16 bytes
// of the SHA-256 of the parts joined by a unit separator, in hex.
func ID(parts ...string) string {
	h := sha256.New()
	for i, p := range parts {
		if i > 0 {
			h.Write([]byte{0x1f})
		}
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// SourceKind says how a source is read.
type SourceKind string

// The source kinds kgforge reads.
const (
	KindText     SourceKind = "text"
	KindMarkdown SourceKind = "markdown"
	KindHTML     SourceKind = "html"
	KindPDF      SourceKind = "pdf"
	KindDOCX     SourceKind = "docx"
	KindJSON     SourceKind = "json"  // one JSON document: an object or an array of records
	KindJSONL    SourceKind = "jsonl" // one JSON record per line
	KindLog      SourceKind = "log"

	KindCSV      SourceKind = "csv" // also TSV and other delimited text
	KindXLSX     SourceKind = "xlsx"
	KindParquet  SourceKind = "parquet"
	KindSQLite   SourceKind = "sqlite"
	KindDuckDB   SourceKind = "duckdb"
	KindPostgres SourceKind = "postgres" // a database reached by a connection string, not a file
)

// IsTable reports whether sources of this kind become tables rather than chunks.
func (k SourceKind) IsTable() bool {
	switch k {
	case KindCSV, KindXLSX, KindParquet, KindSQLite, KindDuckDB, KindPostgres:
		return true
	}
	return false
}

// TextKinds and TableKinds list every kind kgforge reads.
var (
	TextKinds  = []SourceKind{KindText, KindMarkdown, KindHTML, KindPDF, KindDOCX, KindJSON, KindJSONL, KindLog}
	TableKinds = []SourceKind{KindCSV, KindXLSX, KindParquet, KindSQLite, KindDuckDB, KindPostgres}
)

// Source is one input file or table named by a pipeline.
type Source struct {
	ID       string     `json:"id"`
	URI      string     `json:"uri"` // path relative to the pipeline's root
	Kind     SourceKind `json:"kind"`
	SHA256   string     `json:"sha256"`
	Bytes    int64      `json:"bytes"`
	Modified time.Time  `json:"modified"`
}

// Span is a half-open byte range [Start, End) in a source's extracted text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the number of bytes the span covers.
func (s Span) Len() int { return s.End - s.Start }

// Chunk is a piece of a text-like source with its exact place in it.
type Chunk struct {
	ID       string `json:"id"`
	SourceID string `json:"source_id"`
	Ordinal  int    `json:"ordinal"`
	Text     string `json:"text"`
	Span     Span   `json:"span"`
	Page     int    `json:"page,omitempty"`    // 1-based page of a paged source (PDF)
	Section  string `json:"section,omitempty"` // heading path, " > " between levels
	Tokens   int    `json:"tokens"`            // length in the chunker's tokens

	// LineStart and LineEnd are the 1-based, inclusive lines of the source
	// file the chunk covers, for sources whose extracted text is the file's
	// own text (plain text, Markdown, logs); zero otherwise.
	LineStart int `json:"line_start,omitempty"`
	LineEnd   int `json:"line_end,omitempty"`
	// TimeStart and TimeEnd bound the timestamps of the log records in the
	// chunk (RFC 3339); empty when the source has none.
	TimeStart string `json:"time_start,omitempty"`
	TimeEnd   string `json:"time_end,omitempty"`
}

// ChunkID returns the stable id of a chunk: a hash of its source id and text.
func ChunkID(sourceID, text string) string { return ID("chunk", sourceID, text) }

// Mention is one occurrence of an entity name in a chunk.
type Mention struct {
	ID      string `json:"id"`
	ChunkID string `json:"chunk_id"`
	Surface string `json:"surface"`
	Type    string `json:"type"`
	Span    Span   `json:"span"` // in the source's extracted text
	// Description is what the extractor said of the entity, if anything.
	Description string `json:"description,omitempty"`
}

// Triplet is one fact extracted from a chunk, grounded by an evidence quote
// found verbatim in the chunk at EvidenceSpan.
type Triplet struct {
	ID            string  `json:"id"`
	ChunkID       string  `json:"chunk_id"`
	Subject       Mention `json:"subject"`
	Predicate     string  `json:"predicate"`
	Object        Mention `json:"object"`
	Evidence      string  `json:"evidence"`
	EvidenceSpan  Span    `json:"evidence_span"` // in the source's extracted text
	Confidence    float64 `json:"confidence"`
	ValidFrom     string  `json:"valid_from,omitempty"`
	ValidTo       string  `json:"valid_to,omitempty"`
	Model         string  `json:"model"`
	PromptVersion string  `json:"prompt_version"`
}

// NodeKind is the kind of a graph node.
type NodeKind string

// The node kinds of the hybrid graph.
const (
	NodeConcept  NodeKind = "concept"
	NodeDocument NodeKind = "document"
	NodeChunk    NodeKind = "chunk"
	NodeTable    NodeKind = "table"
	NodeColumn   NodeKind = "column"
)

// StructuralLabels are the labels of the graph's own nodes, one per node
// kind; no entity type may take one, so an entity never passes for a
// document, chunk, table or column.
var StructuralLabels = []string{"Entity", "Document", "Chunk", "Table", "Column"}

// IsStructuralLabel reports whether label is one of StructuralLabels.
func IsStructuralLabel(label string) bool { return slices.Contains(StructuralLabels, label) }

// Node is a vertex of the graph after resolution.
type Node struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Kind        NodeKind          `json:"kind"`
	Labels      []string          `json:"labels"`
	Description string            `json:"description,omitempty"`
	Aliases     []string          `json:"aliases,omitempty"`
	ChunkIDs    []string          `json:"chunk_ids,omitempty"`
	Properties  map[string]string `json:"properties,omitempty"`
}

// Edge is a directed, typed relationship between two nodes.
type Edge struct {
	ID         string            `json:"id"`
	Src        string            `json:"src"`
	Dst        string            `json:"dst"`
	Type       string            `json:"type"`
	Confidence float64           `json:"confidence"`
	Evidence   string            `json:"evidence,omitempty"`
	ChunkIDs   []string          `json:"chunk_ids,omitempty"`
	ValidFrom  string            `json:"valid_from,omitempty"`
	ValidTo    string            `json:"valid_to,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
}

// EdgeID returns the stable id of an edge.
func EdgeID(src, typ, dst string) string { return ID("edge", src, typ, dst) }

// Column describes one column of a table.
type Column struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Nulls    int64    `json:"nulls"`
	Distinct int64    `json:"distinct"`
	Min      string   `json:"min,omitempty"` // smallest and largest value, as text
	Max      string   `json:"max,omitempty"`
	Samples  []string `json:"samples,omitempty"` // up to five distinct values
	// Unit is the currency sign or "%" that a CSV or sheet wrote around the
	// column's numbers, which kgforge read as numbers without it
	// (ingest: decorated numbers); empty otherwise.
	Unit string `json:"unit,omitempty"`
}

// Table is a relational table of the data layer, held in DuckDB.
type Table struct {
	Name        string       `json:"name"`
	SourceID    string       `json:"source_id"`
	Origin      string       `json:"origin,omitempty"` // sheet or table inside the source, when it holds several
	Columns     []Column     `json:"columns"`
	Rows        int64        `json:"rows"`
	PrimaryKeys []string     `json:"primary_keys,omitempty"` // candidate keys: unique and non-null columns
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"` // rows skipped or fixed while loading, with their line numbers
}

// ForeignKey is a candidate join from a column of one table to a candidate
// key of another; Score is the share of the column's distinct values found
// in the key.
type ForeignKey struct {
	Column    string  `json:"column"`
	RefTable  string  `json:"ref_table"`
	RefColumn string  `json:"ref_column"`
	Score     float64 `json:"score"`
}

// TableNodeID returns the id of a table's node.
func TableNodeID(table string) string { return ID("table", table) }

// ColumnNodeID returns the id of a column's node.
func ColumnNodeID(table, column string) string { return ID("column", table, column) }

// MergeDecision records that a member name was merged into a canonical node
// (a node with one member has one decision too, so every entity is in the
// merge log).
type MergeDecision struct {
	ClusterID  string   `json:"cluster_id"` // the node id
	Member     string   `json:"member"`     // a surface form
	MemberType string   `json:"member_type"`
	Canonical  string   `json:"canonical"`  // the node's name
	Score      float64  `json:"score"`      // the strongest similarity that joined the member; 1 for the canonical member
	Rule       string   `json:"rule"`       // what decided, e.g. same_name, cosine_high, must_link
	DecidedBy  string   `json:"decided_by"` // auto, or who decided (an override)
	Band       string   `json:"band"`       // high, uncertain, low, or "" without a similarity
	Signals    []string `json:"signals"`    // the name keys and similarities that agreed
	Mentions   int      `json:"mentions"`
	Evidence   []string `json:"evidence"` // sample mentions: CHUNK_ID:START-END, offsets in the source
}

// MergeLink is one scored pair of names the resolver looked at: a link that
// joined two members, an uncertain pair left apart, a link cut by a split or
// an override.
type MergeLink struct {
	ClusterID string   `json:"cluster_id"` // the node of A
	A         string   `json:"a"`
	B         string   `json:"b"`
	BCluster  string   `json:"b_cluster_id"` // the node of B (equal to ClusterID when merged)
	Cosine    float64  `json:"cosine"`
	Signals   []string `json:"signals"`
	Band      string   `json:"band"`
	Rule      string   `json:"rule"`
	Decision  string   `json:"decision"` // merged, uncertain, split, cannot_link
	Doubt     float64  `json:"doubt"`    // 0..1, higher is more doubtful: the review page shows these first
	// Score is the resolver's calibrated probability that A and B are one
	// thing (resolve.Pair.Score); 0 when the pair was decided without the
	// calibrated score. The review page ranks the uncertain pairs by it.
	Score float64 `json:"score"`
}

// The link types between the semantic layer and the data layer. A link in
// the linked band is also an edge of the graph, of the same type.
const (
	LinkRepresentedBy = "REPRESENTED_BY" // a concept → the table whose rows are instances of it
	LinkMeasuredBy    = "MEASURED_BY"    // a quantity, KPI or rule → a column that holds or decides it
	LinkRowOf         = "ROW_OF"         // a row entity → its table (the key is a property)
	LinkSameAs        = "SAME_AS"        // an extracted entity → the row entity it was resolved to
)

// The bands of a link, like the merge bands.
const (
	LinkBandLinked    = "linked"    // the link is in the graph
	LinkBandUncertain = "uncertain" // left out of the graph and shown for review
	LinkBandNone      = "none"      // a candidate below the bands, or refused by an expert
)

// Link is one scored candidate link from a node of the semantic layer (an
// entity or concept) to one of the data layer (a table, a column, a row
// entity). Every candidate the link step scored is logged, linked or not.
type Link struct {
	ID        string   `json:"id"`       // EdgeID(Src, Type, Dst)
	Src       string   `json:"src"`      // node id of the entity or concept
	SrcName   string   `json:"src_name"` // its name
	Dst       string   `json:"dst"`      // node id of the table, column or row entity
	Target    string   `json:"target"`   // TABLE, TABLE.COLUMN or TABLE[KEY]: what an expert names in the overrides file
	Type      string   `json:"type"`     // one of the Link* types
	Score     float64  `json:"score"`    // 0..1
	Signals   []string `json:"signals"`  // what made the candidate, e.g. name_match, cosine:0.83, value_overlap:0.9
	Band      string   `json:"band"`     // one of the LinkBand* values
	Rule      string   `json:"rule"`     // what decided, e.g. score_high, must_link, cannot_link
	DecidedBy string   `json:"decided_by"`
	Evidence  []string `json:"evidence,omitempty"` // CHUNK_ID:START-END in the source, or TABLE[KEY] rows
}

// RowEntityProps are the property names a row entity carries: the table it
// comes from, the key column and the row's key.
const (
	PropTable     = "table"
	PropKeyColumn = "key_column"
	PropKey       = "key"
)

// RowTarget names one row of a table for links and overrides: TABLE[KEY].
func RowTarget(table, key string) string { return table + "[" + key + "]" }

// Graph is the consolidated graph that the load stage writes.
type Graph struct {
	Nodes      []Node          `json:"nodes"`
	Edges      []Edge          `json:"edges"`
	Merges     []MergeDecision `json:"merges"`
	MergeLinks []MergeLink     `json:"merge_links"`
	Links      []Link          `json:"links"`
}

// NormalizeName folds case and white space so that names that differ only in
// those compare equal.
func NormalizeName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
