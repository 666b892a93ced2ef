package pipelines

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"kgforge/kg"

	"github.com/goccy/go-yaml"
)

// Pipeline is one pipeline file.
type Pipeline struct {
	Name     string   `yaml:"name"`
	Root     string   `yaml:"root"`   // directory all source paths are relative to; relative to the pipeline file
	Output   string   `yaml:"output"` // directory bundles are written to; relative to the pipeline file
	Sources  []Source `yaml:"sources"`
	Chunking Chunking `yaml:"chunking"`
	LLM      LLM      `yaml:"llm"`
	Extract  Extract  `yaml:"extract"`
	Neo4j    Neo4j    `yaml:"neo4j"`
	DuckDB   DuckDB   `yaml:"duckdb"`

	// Path is the file the pipeline was read from; SHA256 its digest.
	Path   string `yaml:"-"`
	SHA256 string `yaml:"-"`
}

// Source names files under the root by glob.
type Source struct {
	Name  string   `yaml:"name"`
	Paths []string `yaml:"paths"` // slash globs relative to root
	Kind  string   `yaml:"kind"`  // empty: detect from the extension
}

// Chunking sizes chunks in bytes of text.
type Chunking struct {
	Size    int `yaml:"size"`
	Overlap int `yaml:"overlap"`
}

// LLM names the models and how hard to drive the server.
type LLM struct {
	ChatModel   string `yaml:"chat_model"`
	EmbedModel  string `yaml:"embed_model"`
	Concurrency int    `yaml:"concurrency"` // parallel extraction calls; match OLLAMA_NUM_PARALLEL
	MaxContext  int    `yaml:"max_context"`
	MaxOutput   int    `yaml:"max_output"`
}

// Extract configures extraction.
type Extract struct {
	Prompt string `yaml:"prompt"` // embedded prompt file name
}

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

// Default returns a pipeline with every default set.
func Default() Pipeline {
	return Pipeline{
		Root:     ".",
		Output:   "out",
		Chunking: Chunking{Size: 1200, Overlap: 160},
		LLM:      LLM{ChatModel: "gemma3:270m", EmbedModel: "all-minilm:l6-v2", Concurrency: 1, MaxContext: 8192, MaxOutput: 512},
		Extract:  Extract{Prompt: "extract.tmpl"},
		Neo4j:    Neo4j{Mode: Neo4jAuto, BatchSize: 1000},
		DuckDB:   DuckDB{Threads: 2, MemoryLimit: "2GB"},
	}
}

// Load reads, decodes and validates a pipeline file.
func Load(path string) (*Pipeline, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read pipeline %s: %w", path, err)
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

// Parse decodes and validates pipeline YAML.
func Parse(raw []byte) (*Pipeline, error) {
	p := Default()
	dec := yaml.NewDecoder(bytes.NewReader(raw), yaml.Strict())
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("decode: %s", yaml.FormatError(err, false, true))
	}
	if err := p.Validate(); err != nil {
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

var knownKinds = map[string]bool{string(kg.KindText): true, string(kg.KindMarkdown): true, string(kg.KindCSV): true}

// Validate returns every problem of the pipeline at once.
func (p *Pipeline) Validate() error {
	var errs []error
	bad := func(field string, value any, rule string) { errs = append(errs, &FieldError{field, value, rule}) }
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
		if len(s.Paths) == 0 {
			bad(f+".paths", "[]", "at least one path or glob is required")
		}
		for j, g := range s.Paths {
			if !fs.ValidPath(g) {
				bad(fmt.Sprintf("%s.paths[%d]", f, j), g, "must be a relative slash path inside root, without .. or a leading /")
			}
		}
		if s.Kind != "" && !knownKinds[s.Kind] {
			bad(f+".kind", s.Kind, "must be one of text, markdown, csv")
		}
	}
	if p.Chunking.Size < 200 || p.Chunking.Size > 100_000 {
		bad("chunking.size", p.Chunking.Size, "must be between 200 and 100000 bytes")
	}
	if p.Chunking.Overlap < 0 || p.Chunking.Overlap >= p.Chunking.Size/2 {
		bad("chunking.overlap", p.Chunking.Overlap, "must be at least 0 and less than half of chunking.size")
	}
	if p.LLM.ChatModel == "" {
		bad("llm.chat_model", `""`, "is required")
	}
	if p.LLM.Concurrency < 1 || p.LLM.Concurrency > 64 {
		bad("llm.concurrency", p.LLM.Concurrency, "must be between 1 and 64")
	}
	if p.LLM.MaxContext < 1024 {
		bad("llm.max_context", p.LLM.MaxContext, "must be at least 1024 tokens")
	}
	if p.LLM.MaxOutput < 64 || p.LLM.MaxOutput >= p.LLM.MaxContext {
		bad("llm.max_output", p.LLM.MaxOutput, "must be at least 64 and less than llm.max_context")
	}
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
	return errors.Join(errs...)
}

// Resolve returns a path named in the pipeline file, relative to the file's directory.
func (p *Pipeline) Resolve(path string) string {
	if filepath.IsAbs(path) || p.Path == "" {
		return path
	}
	return filepath.Join(filepath.Dir(p.Path), path)
}
