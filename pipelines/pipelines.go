package pipelines

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"kgforge/kg"
)

// Pipeline is one pipeline file.
type Pipeline struct {
	Name       string     `yaml:"name"`
	Root       string     `yaml:"root"`   // directory all source paths are relative to; relative to the pipeline file
	Output     string     `yaml:"output"` // directory bundles are written to; relative to the pipeline file
	Sources    []Source   `yaml:"sources"`
	Chunking   Chunking   `yaml:"chunking"`
	Limits     Limits     `yaml:"limits"`
	LLM        LLM        `yaml:"llm"`
	Extract    Extract    `yaml:"extract"`
	Resolution Resolution `yaml:"resolve"`
	Link       Link       `yaml:"link"`
	Neo4j      Neo4j      `yaml:"neo4j"`
	DuckDB     DuckDB     `yaml:"duckdb"`
	Gates      Gates      `yaml:"gates"`

	// Path is the file the pipeline was read from; SHA256 its digest.
	Path   string `yaml:"-"`
	SHA256 string `yaml:"-"`

	// written holds, by field path, each value that names a variable as
	// it is written (${VAR}): an error shows that, never the value.
	written map[string]string
}

// Source names files under the root by glob, or a database connection.
type Source struct {
	Name  string   `yaml:"name"`
	Paths []string `yaml:"paths"` // slash globs relative to root
	Kind  string   `yaml:"kind"`  // empty: detect from the extension and content

	// Per-kind settings; each applies to the kinds its comment names.
	TextFields    []string  `yaml:"text_fields"`    // json, jsonl: dotted paths of the fields that hold text; empty: every string field
	RecordStart   string    `yaml:"record_start"`   // log: regexp a line must match to start a record; empty: one record per line
	TimeLayout    string    `yaml:"time_layout"`    // log: Go time layout of the leading timestamp; empty: detected
	Sheets        []string  `yaml:"sheets"`         // xlsx: sheets to load; empty: all
	Numbers       string    `yaml:"numbers"`        // csv, xlsx: "text" keeps numbers written as text ("$19,373") as text; empty or "read": read them as numbers
	Tables        []string  `yaml:"tables"`         // sqlite, duckdb, postgres: tables to load; empty: all user tables
	Query         string    `yaml:"query"`          // postgres: a SELECT loaded as one table instead of tables
	ConnectionEnv string    `yaml:"connection_env"` // postgres: environment variable holding the connection string
	Chunking      *Chunking `yaml:"chunking"`       // overrides the pipeline's chunking for this source
}

// Chunking sizes chunks in tokens (cl100k_base, close to what most chat
// models count).
type Chunking struct {
	Size    int `yaml:"size"`
	Overlap int `yaml:"overlap"`
}

// Limits bound what one source may make a build read; zero means the default.
type Limits struct {
	MaxTextBytes  int64 `yaml:"max_text_bytes"`     // a text-like file (read whole); default 64 MiB
	MaxTableBytes int64 `yaml:"max_table_bytes"`    // a table-like file (streamed); default 8 GiB
	MaxUnzipped   int64 `yaml:"max_unzipped_bytes"` // a DOCX or XLSX once uncompressed; default 1 GiB
	MaxRatio      int64 `yaml:"max_zip_ratio"`      // uncompressed/compressed of one zip entry; default 200
	MaxRecords    int   `yaml:"max_records"`        // records of one JSON, JSONL or log source; default 1000000

	// The budget of one text-like source, checked before any of its chunks
	// reaches the model; a source over it is rejected alone.
	MaxChunks    int `yaml:"max_chunks"`     // chunks (model calls) of one source; default 20000
	MaxTokens    int `yaml:"max_tokens"`     // estimated tokens (4 bytes a token) of one source's text; default 5000000
	MaxWordBytes int `yaml:"max_word_bytes"` // the longest run of text without white space, which no chunk can cut; default 8192

	// MaxBuildTokens is the token budget of one build's extraction,
	// prompt and completion tokens together; 0 means none. A build whose
	// plan is over it stops before extraction, one whose counted tokens
	// reach it stops there (kgforge build --max-tokens overrides it).
	MaxBuildTokens int64 `yaml:"max_build_tokens"`
}

// LLM names the models and how hard to drive the server.
type LLM struct {
	ChatModel   string `yaml:"chat_model"`
	EmbedModel  string `yaml:"embed_model"`
	Concurrency int    `yaml:"concurrency"` // parallel extraction calls; match OLLAMA_NUM_PARALLEL
	MaxContext  int    `yaml:"max_context"`
	MaxOutput   int    `yaml:"max_output"`
	// EmbedRuntime says what embeds entity names: onnx (in process through
	// ONNX Runtime, the files of scripts/onnx.sh; all-minilm:l6-v2 only),
	// ollama (the server), or auto (the default: onnx when its files are
	// there and the model is all-minilm:l6-v2, else ollama).
	EmbedRuntime EmbedRuntime `yaml:"embed_runtime"`
	// Endpoints are several servers serving the same models, used instead
	// of OLLAMA_HOST: each request goes to the least-loaded one, and
	// Concurrency is the sum of their slots.
	Endpoints []Endpoint `yaml:"endpoints"`
	// NumThread is the threads each server's runner computes with
	// (Ollama's num_thread); 0 means KGFORGE_NUM_THREAD, then the
	// server's default. 1 is several times faster where other processes
	// share the cores (llm.Options.NumThread).
	NumThread int `yaml:"num_thread"`
	// Timeout bounds each model call, including the time it waits in the
	// server's queue (a client with more calls in flight than the server
	// has slots waits there); 0 means 5 minutes.
	Timeout time.Duration `yaml:"timeout"`
}

// EmbedRuntime is what embeds entity names (LLM.EmbedRuntime).
type EmbedRuntime string

// The embedding runtimes.
const (
	EmbedAuto   EmbedRuntime = "auto"
	EmbedONNX   EmbedRuntime = "onnx"
	EmbedOllama EmbedRuntime = "ollama"
)

// ONNXModel is the one embed_model embed_runtime onnx runs.
const ONNXModel = "all-minilm:l6-v2"

func checkEmbedRuntime(bad func(string, any, string), l LLM) {
	switch l.EmbedRuntime {
	case "", EmbedAuto, EmbedOllama: // "": a pipeline not read from a file
	case EmbedONNX:
		if l.EmbedModel != ONNXModel {
			bad("llm.embed_model", l.EmbedModel, "must be "+ONNXModel+" with llm.embed_runtime onnx (the one model it runs); use embed_runtime ollama for another")
		}
	default:
		bad("llm.embed_runtime", l.EmbedRuntime, "must be auto, onnx or ollama")
	}
}

// Endpoint is one LLM server and how many requests it works on at once.
type Endpoint struct {
	URL   string `yaml:"url"`   // http://host:port, or host:port
	Slots int    `yaml:"slots"` // the server's OLLAMA_NUM_PARALLEL, 1..64
}

// Slots is the sum of the endpoints' slots, 0 without endpoints.
func (l LLM) Slots() int {
	n := 0
	for _, e := range l.Endpoints {
		n += e.Slots
	}
	return n
}

// Extract configures extraction.
type Extract struct {
	Prompt    string       `yaml:"prompt"`    // embedded prompt file name
	Schema    *Schema      `yaml:"schema"`    // allowed entity and relation types; nil: free, normalised
	Evidence  EvidenceMode `yaml:"evidence"`  // what the model may give as evidence
	Gleanings int          `yaml:"gleanings"` // extra "what did you miss?" turns per chunk, 0..3; chat mode only
	// Window is the most tokens of a chunk one call of the specialist
	// reads (whole sentences, consecutive runs); 0 means its default
	// (32, about a sentence), -1 the whole chunk in one call. Other modes read the chunk
	// whole.
	Window int `yaml:"window"`
	// MinConfidence keeps only facts whose confidence reaches it: how
	// well the fact's evidence was found in the chunk times, for a model
	// driven by the line format (specialist, completion lines), the
	// model's own probability of the line it wrote the fact on. 0 keeps
	// every grounded fact; a model that gives no probabilities is kept by
	// its grounding alone (docs/extraction.md).
	MinConfidence float64 `yaml:"min_confidence"`
	// Mode says how the chat model is driven: chat (instructions and
	// worked examples as a conversation), completion (a raw few-shot
	// pattern for a base model to continue), specialist (kgforge's own
	// extraction model, kgforge-extract, with the prompt it was trained
	// on), or auto: specialist when the model's metadata names kgforge's
	// trained prompt, completion when the server says the model has no
	// prompt template, chat otherwise.
	Mode ExtractMode `yaml:"mode"`
	// Think lets a thinking model think before it answers; off by default
	// (think: false is sent), since the reply's grammar applies only after
	// the thinking.
	Think bool `yaml:"think"`
	// Skip sends no chunk to the chat model: the graph is what the tables,
	// the documents' structure and the link step make of them (the
	// name-only path; no model is asked for anything).
	Skip bool `yaml:"skip"`
}

// ExtractMode says how extraction drives the chat model.
type ExtractMode string

// The extraction modes.
const (
	ExtractAuto       ExtractMode = "auto"       // from the model's metadata: no template means completion
	ExtractChat       ExtractMode = "chat"       // /api/chat with instructions and worked examples
	ExtractCompletion ExtractMode = "completion" // /api/generate, raw, with a few-shot pattern
	ExtractSpecialist ExtractMode = "specialist" // kgforge's own extraction model: /api/generate, raw, its trained prompt
)

// EvidenceMode says what the model may give as a triplet's evidence.
type EvidenceMode string

// The evidence modes.
const (
	EvidenceSentences EvidenceMode = "sentences" // one of the chunk's sentences, enforced by the reply schema
	EvidenceQuote     EvidenceMode = "quote"     // a free quote, located exactly, normalised or fuzzily
)

// Schema is the vocabulary extraction may use: the model proposes nothing
// outside it.
type Schema struct {
	EntityTypes   []EntityType   `yaml:"entity_types"`
	RelationTypes []RelationType `yaml:"relation_types"`
}

// EntityType is one allowed entity type, with a one-line description for
// the prompt.
type EntityType struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// RelationType is one allowed predicate; Domain and Range, when set, name
// the entity types of its subject and object.
type RelationType struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Domain      string `yaml:"domain"`
	Range       string `yaml:"range"`
}

// Resolution configures entity resolution (docs/resolution.md).
type Resolution struct {
	// Embeddings: whether entity names are embedded for similarity; off,
	// only the name keys (case, accents, suffixes, plurals, acronyms) merge.
	Embeddings *bool `yaml:"embeddings"`
	// High and Low bound the uncertain band of cosine similarity: a pair at
	// or above High merges, one between is left apart and shown for review.
	High float64 `yaml:"high"`
	Low  float64 `yaml:"low"`
	// ShortHigh is the similarity a short name or acronym needs without a
	// name key that agrees.
	ShortHigh float64 `yaml:"short_high"`
	// MinClusterSim and MaxClusterSize bound a cluster; one that breaks them
	// is split by average linkage instead of merged by chaining.
	MinClusterSim  float64 `yaml:"min_cluster_similarity"`
	MaxClusterSize int     `yaml:"max_cluster_size"`
	// CompatibleTypes lists, per entity type, the other types it may merge
	// with (both ways); equal types always may, untyped names may merge with
	// any type, other pairs never.
	CompatibleTypes map[string][]string `yaml:"compatible_types"`
	// Overrides is the experts' overrides file, relative to the pipeline
	// file; it need not exist yet.
	Overrides string `yaml:"overrides"`
	// LLMJudge asks llm.chat_model about the most doubtful pairs of the
	// uncertain band (at most MaxJudged; cached), and merges those it calls
	// the same. Off by default.
	LLMJudge  bool `yaml:"llm_judge"`
	MaxJudged int  `yaml:"max_judged"`
}

// Link configures the link step (docs/linking.md): which tables' rows
// become entities, and the bands of links between concepts and tables.
type Link struct {
	// MaxRowEntities bounds the row entities of one table: a table with
	// more rows stays a table, whatever Tables says. 0 means 5000.
	MaxRowEntities int `yaml:"max_row_entities"`
	// Tables sets, per table name as the build's DuckDB has it, whether and
	// how its rows become entities; a table it does not name is decided
	// from its profile.
	Tables map[string]LinkTable `yaml:"tables"`
	// High and Low bound the uncertain band of concept links: at or above
	// High a link is in the graph, between Low and High it is shown for
	// review. 0 means the default.
	High float64 `yaml:"high"`
	Low  float64 `yaml:"low"`
}

// LinkTable is the pipeline's say on one table's rows.
type LinkTable struct {
	Entity *bool  `yaml:"entity"` // true: rows become entities; false: it stays a table; unset: from the profile
	Type   string `yaml:"type"`   // the entity type; default the table name singularised, in title case
	Name   string `yaml:"name"`   // the column that names a row; default the name-like column of the profile
	Key    string `yaml:"key"`    // the key column; default a candidate key of the profile
}

// EmbeddingsOn reports whether resolution uses embeddings (the default).
func (r Resolution) EmbeddingsOn() bool { return r.Embeddings == nil || *r.Embeddings }

// Neo4jMode says whether a build loads Neo4j.
type Neo4jMode string

// The Neo4j modes.
const (
	Neo4jAuto   Neo4jMode = "auto"   // load when NEO4J_URI is set
	Neo4jAlways Neo4jMode = "always" // load, and fail without NEO4J_URI
	Neo4jNever  Neo4jMode = "never"
)

// Neo4j configures the load into Neo4j.
type Neo4j struct {
	Mode      Neo4jMode `yaml:"mode"`
	BatchSize int       `yaml:"batch_size"`
}

// DuckDB bounds the build's DuckDB.
type DuckDB struct {
	Threads     int    `yaml:"threads"`
	MemoryLimit string `yaml:"memory_limit"`
}

// Gates are the quality gates a build must pass against the previous one
// (the bundle latest points at) before its bundle becomes latest; a gate
// left out is not checked. A build with no previous bundle passes them all.
type Gates struct {
	// MaxNodeDrop fails the build when its nodes are fewer than the
	// previous build's by more than this percentage; MaxEdgeDrop the same
	// for edges.
	MaxNodeDrop *float64 `yaml:"max_node_drop_percent"`
	MaxEdgeDrop *float64 `yaml:"max_edge_drop_percent"`
	// MaxMergeGrowth fails the build when its merges outnumber the
	// previous build's by more than this percentage.
	MaxMergeGrowth *float64 `yaml:"max_merge_growth_percent"`
	// NewSourceFailures says what a source rejected now, that the previous
	// build did not reject, does: fail the build, or allow it (the
	// default: the build is partial, exit 3).
	NewSourceFailures GateAction `yaml:"new_source_failures"`
}

// GateAction says what a gate does when it trips.
type GateAction string

// The gate actions.
const (
	GateAllow GateAction = "allow"
	GateFail  GateAction = "fail"
)

// Count says how many gates are set.
func (g Gates) Count() int {
	n := 0
	for _, p := range []*float64{g.MaxNodeDrop, g.MaxEdgeDrop, g.MaxMergeGrowth} {
		if p != nil {
			n++
		}
	}
	if g.NewSourceFailures == GateFail {
		n++
	}
	return n
}

// Default returns a pipeline with every default set.
func Default() Pipeline {
	return Pipeline{
		Root:     ".",
		Output:   "out",
		Chunking: Chunking{Size: 300, Overlap: 40},
		LLM:      LLM{ChatModel: "gemma3:270m", EmbedModel: "all-minilm:l6-v2", EmbedRuntime: EmbedAuto, Concurrency: 1, MaxContext: 8192, MaxOutput: 512},
		Extract:  Extract{Prompt: "extract.tmpl", Evidence: EvidenceSentences, Mode: ExtractAuto},
		Neo4j:    Neo4j{Mode: Neo4jAuto, BatchSize: 5000},
		DuckDB:   DuckDB{Threads: 2, MemoryLimit: "2GB"},
		Gates:    Gates{NewSourceFailures: GateAllow},
	}
}

// MaxFileBytes bounds a pipeline file. A real one is a few KiB; decoding
// takes some fifty times the file's size in memory, so a file of hundreds
// of megabytes would take gigabytes before any check.
const MaxFileBytes = 1 << 20

// Load reads, decodes and validates a pipeline file.
func Load(path string) (*Pipeline, error) {
	raw, err := readFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("pipeline %s: %w", path, err)
	}
	p.Path = path
	sum := sha256.Sum256(raw)
	p.SHA256 = hex.EncodeToString(sum[:])
	return p, nil
}

// readFile reads a pipeline file of at most MaxFileBytes; a larger one is
// refused before it is read (or, when it grows meanwhile, at the limit).
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read pipeline %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read only
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileBytes {
		return nil, tooLarge(path, fi.Size())
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read pipeline %s: %w", path, err)
	}
	if len(raw) > MaxFileBytes {
		return nil, tooLarge(path, int64(len(raw)))
	}
	return raw, nil
}

func tooLarge(path string, size int64) error {
	return fmt.Errorf("read pipeline %s: %d bytes, over the limit of %d bytes (1 MiB) for a pipeline file: is it the right file?", path, size, MaxFileBytes)
}

// Parse decodes and validates pipeline YAML, expanding ${VAR} in string
// values from the environment (Expand).
func Parse(raw []byte) (*Pipeline, error) {
	return ParseEnv(raw, os.LookupEnv)
}

// ParseEnv is Parse with ${VAR} read through lookup instead of the
// process's environment. Every problem comes back at once: unset
// variables, unknown fields and invalid values, each naming its field.
func ParseEnv(raw []byte, lookup func(string) (string, bool)) (*Pipeline, error) {
	if len(raw) > MaxFileBytes {
		return nil, fmt.Errorf("pipeline of %d bytes: over the limit of %d bytes (1 MiB) for a pipeline file", len(raw), MaxFileBytes)
	}
	p := Default()
	typed, err := decode(raw, &p, lookup)
	if typed {
		if len(p.LLM.Endpoints) > 0 && p.LLM.Concurrency == Default().LLM.Concurrency {
			p.LLM.Concurrency = p.LLM.Slots() // one extraction worker per slot
		}
		err = errors.Join(err, p.Validate())
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// FieldError is one invalid field of a pipeline.
type FieldError struct {
	Field string
	Value any
	Rule  string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %v: %s", e.Field, e.Value, e.Rule) }

// fieldError is the FieldError of field. A value taken from the
// environment is shown as written (${VAR}), never as its value, which
// may be a secret and an error lands in logs: a field that holds such
// values in its parts (a list, a map) names them instead of its value.
func (p *Pipeline) fieldError(field string, value any, rule string) *FieldError {
	if w, ok := p.written[field]; ok {
		if v := fmt.Sprint(value); v != "" {
			rule = strings.ReplaceAll(rule, v, w)
		}
		return &FieldError{Field: field, Value: strconv.Quote(w), Rule: rule}
	}
	var parts []string
	for f, w := range p.written {
		if strings.HasPrefix(f, field+".") || strings.HasPrefix(f, field+"[") {
			parts = append(parts, strconv.Quote(w))
		}
	}
	if len(parts) > 0 {
		slices.Sort(parts)
		value = "(not shown: it holds " + strings.Join(parts, ", ") + ")"
	}
	return &FieldError{Field: field, Value: value, Rule: rule}
}

// regexpProblem is what is wrong with the regular expression of field:
// the parser's message, which quotes the expression, or only its kind of
// error when the expression came from the environment.
func (p *Pipeline) regexpProblem(field string, err error) string {
	if _, ok := p.written[field]; !ok {
		return err.Error()
	}
	if se := (*syntax.Error)(nil); errors.As(err, &se) {
		return string(se.Code)
	}
	return "it does not compile"
}

func kindNames() []string {
	var names []string
	for _, k := range append(slices.Clone(kg.TextKinds), kg.TableKinds...) {
		names = append(names, string(k))
	}
	return names
}

// Validate returns every problem of the pipeline at once.
func (p *Pipeline) Validate() error {
	var errs []error
	bad := func(field string, value any, rule string) { errs = append(errs, p.fieldError(field, value, rule)) }
	if strings.TrimSpace(p.Name) == "" {
		bad("name", `""`, "is required")
	}
	if len(p.Sources) == 0 {
		bad("sources", "[]", "at least one source is required")
	}
	names := map[string]bool{}
	for i, s := range p.Sources {
		f := fmt.Sprintf("sources[%d]", i)
		if s.Name == "" {
			bad(f+".name", `""`, "is required")
		} else if names[s.Name] {
			bad(f+".name", s.Name, "is used by another source")
		}
		names[s.Name] = true
		if s.Kind == string(kg.KindPostgres) {
			if len(s.Paths) > 0 {
				bad(f+".paths", s.Paths, "a postgres source reads a connection, not files: remove paths")
			}
			if s.ConnectionEnv == "" {
				bad(f+".connection_env", `""`, "a postgres source needs the name of the environment variable holding its connection string")
			}
			if s.Query != "" && len(s.Tables) > 0 {
				bad(f+".query", s.Query, "set either query or tables, not both")
			}
		} else if len(s.Paths) == 0 {
			bad(f+".paths", "[]", "at least one path or glob is required")
		}
		if s.RecordStart != "" {
			if _, err := regexp.Compile(s.RecordStart); err != nil {
				bad(f+".record_start", s.RecordStart, "is not a valid regular expression: "+p.regexpProblem(f+".record_start", err))
			}
		}
		if s.Chunking != nil {
			checkChunking(bad, f+".chunking", *s.Chunking)
		}
		for j, g := range s.Paths {
			if !fs.ValidPath(g) {
				bad(fmt.Sprintf("%s.paths[%d]", f, j), g, "must be a relative slash path inside root, without .. or a leading /")
			}
		}
		if s.Kind != "" && !slices.Contains(kindNames(), s.Kind) {
			bad(f+".kind", s.Kind, "must be one of "+strings.Join(kindNames(), ", "))
		}
		if s.Numbers != "" && s.Numbers != "read" && s.Numbers != "text" {
			bad(f+".numbers", s.Numbers, `must be "read" (numbers written as text, such as "$19,373", read as numbers; the default) or "text" (kept as text)`)
		}
	}
	checkChunking(bad, "chunking", p.Chunking)
	checkLimits(bad, p.Limits)
	if p.LLM.ChatModel == "" {
		bad("llm.chat_model", `""`, "is required")
	}
	checkEndpoints(bad, p.LLM)
	checkEmbedRuntime(bad, p.LLM)
	if p.LLM.Timeout < 0 {
		bad("llm.timeout", p.LLM.Timeout.String(), "must not be negative (0: 5 minutes)")
	}
	if p.LLM.NumThread < 0 || p.LLM.NumThread > 256 {
		bad("llm.num_thread", p.LLM.NumThread, "must be between 1 and 256, or 0 for KGFORGE_NUM_THREAD, then the server's default")
	}
	if p.LLM.MaxContext < 1024 {
		bad("llm.max_context", p.LLM.MaxContext, "must be at least 1024 tokens")
	}
	if p.LLM.MaxOutput < 64 || p.LLM.MaxOutput >= p.LLM.MaxContext {
		bad("llm.max_output", p.LLM.MaxOutput, "must be at least 64 and less than llm.max_context")
	}
	if p.Extract.Prompt == "" {
		bad("extract.prompt", `""`, "is required (the default is extract.tmpl)")
	}
	switch p.Extract.Evidence {
	case EvidenceSentences, EvidenceQuote:
	default:
		bad("extract.evidence", p.Extract.Evidence, "must be sentences or quote")
	}
	if p.Extract.Gleanings < 0 || p.Extract.Gleanings > 3 {
		bad("extract.gleanings", p.Extract.Gleanings, "must be between 0 and 3")
	}
	if w := p.Extract.Window; w != -1 && w != 0 && (w < 16 || w > 8192) {
		bad("extract.window", w, "must be -1 (the whole chunk), 0 (the default, 32) or between 16 and 8192 tokens")
	}
	if c := p.Extract.MinConfidence; !(c >= 0 && c < 1) {
		bad("extract.min_confidence", c, "must be at least 0 and less than 1")
	}
	switch p.Extract.Mode {
	case ExtractAuto, ExtractChat:
	case ExtractCompletion, ExtractSpecialist:
		if p.Extract.Gleanings > 0 {
			bad("extract.gleanings", p.Extract.Gleanings, "must be 0 with extract.mode "+string(p.Extract.Mode)+" (gleaning needs a conversation)")
		}
	default:
		bad("extract.mode", p.Extract.Mode, "must be auto, chat, completion or specialist")
	}
	if p.Extract.Schema != nil {
		checkSchema(bad, *p.Extract.Schema)
	}
	checkResolve(bad, p.Resolution)
	checkLink(bad, p.Link)
	switch p.Neo4j.Mode {
	case Neo4jAuto, Neo4jAlways, Neo4jNever:
	default:
		bad("neo4j.mode", p.Neo4j.Mode, "must be auto, always or never")
	}
	if p.Neo4j.BatchSize < 1 || p.Neo4j.BatchSize > 100_000 {
		bad("neo4j.batch_size", p.Neo4j.BatchSize, "must be between 1 and 100000")
	}
	if p.DuckDB.Threads < 0 {
		bad("duckdb.threads", p.DuckDB.Threads, "must not be negative")
	}
	checkGates(bad, p.Gates)
	return errors.Join(errs...)
}

// maxSlots bounds the sum of the endpoints' slots: the extraction workers.
const maxSlots = 1024

func checkEndpoints(bad func(string, any, string), l LLM) {
	if len(l.Endpoints) == 0 {
		if l.Concurrency < 1 || l.Concurrency > 64 {
			bad("llm.concurrency", l.Concurrency, "must be between 1 and 64")
		}
		return
	}
	seen := map[string]int{}
	for i, e := range l.Endpoints {
		f := fmt.Sprintf("llm.endpoints[%d]", i)
		u := endpointURL(e.URL)
		switch {
		case strings.TrimSpace(e.URL) == "":
			bad(f+".url", `""`, "is required")
		case !validEndpoint(u):
			bad(f+".url", e.URL, "must be http://host:port, https://host:port or host:port")
		default:
			if j, ok := seen[u]; ok {
				bad(f+".url", e.URL, fmt.Sprintf("is llm.endpoints[%d] already", j))
			}
			seen[u] = i
		}
		if e.Slots < 1 || e.Slots > 64 {
			bad(f+".slots", e.Slots, "must be between 1 and 64 (the server's OLLAMA_NUM_PARALLEL)")
		}
	}
	if n := l.Slots(); n > maxSlots {
		bad("llm.endpoints", fmt.Sprintf("%d slots", n), fmt.Sprintf("at most %d slots in all", maxSlots))
	} else if l.Concurrency != n {
		bad("llm.concurrency", l.Concurrency, fmt.Sprintf("with llm.endpoints it is the sum of their slots (%d): leave it out or set %d", n, n))
	}
}

// endpointURL is an endpoint's URL with the scheme a bare host:port
// implies, as OLLAMA_HOST takes it.
func endpointURL(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), "/")
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	return s
}

func validEndpoint(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.RawQuery == "" && u.User == nil
}

func checkGates(bad func(string, any, string), g Gates) {
	for _, f := range []struct {
		name string
		v    *float64
		max  float64
	}{{"max_node_drop_percent", g.MaxNodeDrop, 100}, {"max_edge_drop_percent", g.MaxEdgeDrop, 100}, {"max_merge_growth_percent", g.MaxMergeGrowth, 1e9}} {
		if f.v != nil && (*f.v < 0 || *f.v > f.max) {
			bad("gates."+f.name, *f.v, fmt.Sprintf("must be a percentage between 0 and %v", f.max))
		}
	}
	switch g.NewSourceFailures {
	case GateAllow, GateFail:
	default:
		bad("gates.new_source_failures", g.NewSourceFailures, "must be allow or fail")
	}
}

func checkLimits(bad func(string, any, string), l Limits) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max_text_bytes", l.MaxTextBytes},
		{"max_table_bytes", l.MaxTableBytes},
		{"max_unzipped_bytes", l.MaxUnzipped},
		{"max_zip_ratio", l.MaxRatio},
		{"max_records", int64(l.MaxRecords)},
		{"max_chunks", int64(l.MaxChunks)},
		{"max_tokens", int64(l.MaxTokens)},
		{"max_word_bytes", int64(l.MaxWordBytes)},
	} {
		if f.v < 0 {
			bad("limits."+f.name, f.v, "must not be negative (0 means the default)")
		}
	}
	if l.MaxBuildTokens < 0 {
		bad("limits.max_build_tokens", l.MaxBuildTokens, "must not be negative (0 means no token budget)")
	}
}

func checkResolve(bad func(string, any, string), r Resolution) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"high", r.High}, {"low", r.Low}, {"short_high", r.ShortHigh}, {"min_cluster_similarity", r.MinClusterSim}} {
		if f.v < 0 || f.v > 1 {
			bad("resolve."+f.name, f.v, "must be between 0 and 1 (0 means the default)")
		}
	}
	if r.High > 0 && r.Low > 0 && r.Low > r.High {
		bad("resolve.low", r.Low, fmt.Sprintf("must not be above resolve.high (%v)", r.High))
	}
	if r.MaxJudged < 0 {
		bad("resolve.max_judged", r.MaxJudged, "must not be negative (0 means 200)")
	}
	if r.MaxClusterSize < 0 {
		bad("resolve.max_cluster_size", r.MaxClusterSize, "must not be negative (0 means the default)")
	}
	if r.Overrides != "" && strings.TrimSpace(r.Overrides) != r.Overrides {
		bad("resolve.overrides", r.Overrides, "must not start or end with spaces")
	}
	for typ, others := range r.CompatibleTypes {
		if strings.TrimSpace(typ) == "" || slices.Contains(others, "") {
			bad("resolve.compatible_types", r.CompatibleTypes, "type names must not be empty")
			break
		}
	}
}

var typeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

func checkLink(bad func(string, any, string), l Link) {
	if l.MaxRowEntities < 0 {
		bad("link.max_row_entities", l.MaxRowEntities, "must not be negative (0 means 5000)")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"high", l.High}, {"low", l.Low}} {
		if f.v < 0 || f.v > 1 {
			bad("link."+f.name, f.v, "must be between 0 and 1 (0 means the default)")
		}
	}
	if l.High > 0 && l.Low > 0 && l.Low > l.High {
		bad("link.low", l.Low, fmt.Sprintf("must not be above link.high (%v)", l.High))
	}
	for _, name := range slices.Sorted(maps.Keys(l.Tables)) {
		t, f := l.Tables[name], "link.tables."+name
		if strings.TrimSpace(name) == "" {
			bad("link.tables", `""`, "a table name must not be empty")
		}
		if t.Entity != nil && !*t.Entity && (t.Type != "" || t.Name != "" || t.Key != "") {
			bad(f, "entity: false", "says the table stays a table; remove type, name and key, or entity: false")
		}
		if t.Type != "" && (!typeName.MatchString(t.Type) || kg.IsStructuralLabel(t.Type)) {
			bad(f+".type", t.Type, "must be a letter then letters, digits or _, and none of "+strings.Join(kg.StructuralLabels, ", "))
		}
	}
}

func checkChunking(bad func(string, any, string), field string, c Chunking) {
	if c.Size < 50 || c.Size > 8000 {
		bad(field+".size", c.Size, "must be between 50 and 8000 tokens")
	}
	if c.Overlap < 0 || c.Overlap >= c.Size/2 {
		bad(field+".overlap", c.Overlap, "must be at least 0 and less than half of size")
	}
}

// checkSchema checks that every name is set and used once (ignoring case
// and everything but letters and digits, which extraction's normalisation
// also ignores), and that domains and ranges name declared entity types.
func checkSchema(bad func(string, any, string), s Schema) {
	if len(s.EntityTypes) == 0 && len(s.RelationTypes) == 0 {
		bad("extract.schema", "{}", "give entity_types, relation_types or both, or remove schema")
	}
	types := map[string]bool{}
	for i, t := range s.EntityTypes {
		f := fmt.Sprintf("extract.schema.entity_types[%d].name", i)
		n := foldName(t.Name)
		switch {
		case n == "":
			bad(f, `""`, "is required")
		case types[n]:
			bad(f, t.Name, "is used by another entity type")
		}
		types[n] = true
	}
	rels := map[string]bool{}
	for i, r := range s.RelationTypes {
		f := fmt.Sprintf("extract.schema.relation_types[%d]", i)
		n := foldName(r.Name)
		switch {
		case n == "":
			bad(f+".name", `""`, "is required")
		case rels[n]:
			bad(f+".name", r.Name, "is used by another relation type")
		}
		rels[n] = true
		for _, fv := range [][2]string{{"domain", r.Domain}, {"range", r.Range}} {
			field, v := fv[0], fv[1]
			switch {
			case v == "":
			case len(s.EntityTypes) == 0:
				bad(f+"."+field, v, "needs entity_types to name it")
			case !slices.ContainsFunc(s.EntityTypes, func(t EntityType) bool { return t.Name == v }):
				bad(f+"."+field, v, "is not one of entity_types")
			}
		}
	}
}

// foldName keeps only the letters and digits of s, lower-cased.
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// Resolve returns a path named in the pipeline file, relative to the file's directory.
func (p *Pipeline) Resolve(path string) string {
	if filepath.IsAbs(path) || p.Path == "" {
		return path
	}
	return filepath.Join(filepath.Dir(p.Path), path)
}
