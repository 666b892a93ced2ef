package sqlqa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"
)

// Example is one text-to-SQL question with its gold SQL (Spider's
// dev.json and KaggleDBQA's examples share these fields).
type Example struct {
	DB       string `json:"db_id"`
	Question string `json:"question"`
	Query    string `json:"query"`
}

// Set is one benchmark's examples and where its databases lie.
type Set struct {
	Name     string
	Examples []Example
	// DBFile is the SQLite file of a database.
	DBFile func(db string) string
	// Docs is each database's documentation as markdown (KaggleDBQA);
	// nil when the set has none.
	Docs map[string]string
}

// Spider reads Spider's dev set under data (the benchmarks directory).
func Spider(data string) (*Set, error) {
	var ex []Example
	if err := ReadJSON(filepath.Join(data, "sql-qa", "spider", "dev.json"), &ex); err != nil {
		return nil, err
	}
	db := func(id string) string { return filepath.Join(data, "sql-qa", "spider", "database", id, id+".sqlite") }
	return &Set{Name: "spider", Examples: ex, DBFile: db}, nil
}

// Kaggle reads KaggleDBQA under data: the examples of every database,
// and each database's documentation (overview, column descriptions,
// value meanings), since the meaning of its columns is there.
func Kaggle(data string) (*Set, error) {
	dir := filepath.Join(data, "sql-qa", "kaggle-dbqa")
	files, err := filepath.Glob(filepath.Join(dir, "examples", "*_fewshot.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("read kaggle-dbqa examples: no examples/*_fewshot.json under %s", dir)
	}
	var ex []Example
	for _, f := range files {
		var part []Example
		if err := ReadJSON(f, &part); err != nil {
			return nil, err
		}
		ex = append(ex, part...)
	}
	docs, err := kaggleDocs(filepath.Join(dir, "KaggleDBQA_tables.json"))
	if err != nil {
		return nil, err
	}
	db := func(id string) string { return filepath.Join(dir, "databases", id+".sqlite") }
	return &Set{Name: "kaggle", Examples: ex, DBFile: db, Docs: docs}, nil
}

// ReadJSON decodes the JSON file at path into v.
func ReadJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// Gold runs gold SQL over one built bundle.
type Gold struct {
	b      *bundle.Bundle
	query  func(ctx context.Context, q string, maxRows int) ([]string, [][]string, bool, error)
	close  func() error
	rename map[string]string // the database's table name (lower case) -> the bundle's
}

// Build is how a bundle is built: the chat model named in its pipeline,
// and whether its documents are extracted by that model.
type Build struct {
	Model   string
	Extract bool
}

// OpenGold copies the database db (and its documentation doc, when not
// empty) into the source directory src, builds its bundle there (once:
// a bundle built before is opened as it is) and opens it for gold SQL.
// Close releases it.
func OpenGold(ctx context.Context, bo Build, client *llm.Client, src, db, doc string) (*Gold, error) {
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	if err := copyFile(filepath.Join(src, filepath.Base(db)), db); err != nil {
		return nil, err
	}
	if doc != "" {
		if err := os.WriteFile(filepath.Join(src, "documentation.md"), []byte(doc), 0o644); err != nil {
			return nil, err
		}
	}
	dir, err := BuildBundle(ctx, bo, client, src)
	if err != nil {
		return nil, err
	}
	b, err := bundle.Open(dir)
	if err != nil {
		return nil, err
	}
	sb, err := b.Sandbox(ctx)
	if err != nil {
		return nil, errors.Join(err, b.Close())
	}
	tables, err := b.Tables()
	if err != nil {
		return nil, errors.Join(err, sb.Close(), b.Close())
	}
	g := &Gold{b: b, query: sb.Query, close: func() error { return errors.Join(sb.Close(), b.Close()) }, rename: map[string]string{}}
	for _, t := range tables {
		if t.Origin != "" {
			g.rename[strings.ToLower(t.Origin)] = t.Name
		}
	}
	return g, nil
}

// Bundle is the opened bundle.
func (g *Gold) Bundle() *bundle.Bundle { return g.b }

// Close releases the bundle and its sandbox.
func (g *Gold) Close() error { return g.close() }

// Table is the bundle's name of the database's table name (any case),
// or "" when the bundle has none.
func (g *Gold) Table(name string) string { return g.rename[strings.ToLower(name)] }

// Query runs q (already rewritten) in the bundle's sandbox: the column
// names, at most maxRows rows as text, and whether more were left out.
func (g *Gold) Query(ctx context.Context, q string, maxRows int) ([]string, [][]string, bool, error) {
	return g.query(ctx, q, maxRows)
}

var (
	identRE  = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	dquoteRE = regexp.MustCompile(`"([^"]*)"`)
)

// Rewrite makes SQLite gold SQL run over the bundle: the database's
// table names become the bundle's, and double-quoted strings
// single-quoted.
func (g *Gold) Rewrite(q string) string {
	q = dquoteRE.ReplaceAllStringFunc(q, func(m string) string {
		inner := m[1 : len(m)-1]
		if _, ok := g.rename[strings.ToLower(inner)]; ok {
			return g.rename[strings.ToLower(inner)]
		}
		return "'" + strings.ReplaceAll(inner, "'", "''") + "'"
	})
	var b strings.Builder
	inString := false
	last := 0
	for _, m := range identRE.FindAllStringIndex(q, -1) {
		if strings.Count(q[last:m[0]], "'")%2 == 1 {
			inString = !inString
		}
		b.WriteString(q[last:m[0]])
		last = m[1]
		word := q[m[0]:m[1]]
		if to, ok := g.rename[strings.ToLower(word)]; ok && !inString {
			word = to
		}
		b.WriteString(word)
	}
	b.WriteString(q[last:])
	return b.String()
}

// kaggleTables is the documentation of KaggleDBQA's databases.
type kaggleTables struct {
	DB           string   `json:"db_id"`
	Overview     string   `json:"db_overview"`
	Tables       []string `json:"table_names_original"`
	Columns      [][2]any `json:"column_names_original"` // [table index, name]; -1 is *
	Descriptions []string `json:"column_descriptions"`
	ValueEnums   any      `json:"value_enums"`
}

// kaggleDocs writes each database's documentation as a markdown document:
// the overview, then per table its columns with their descriptions.
func kaggleDocs(path string) (map[string]string, error) {
	var ts []kaggleTables
	if err := ReadJSON(path, &ts); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, t := range ts {
		var b strings.Builder
		fmt.Fprintf(&b, "# The %s database\n\n", t.DB)
		if t.Overview != "" {
			b.WriteString(t.Overview + "\n\n")
		}
		for ti, name := range t.Tables {
			fmt.Fprintf(&b, "## Table %s\n\n", name)
			for ci, c := range t.Columns {
				idx, _ := c[0].(float64)
				if int(idx) != ti || ci >= len(t.Descriptions) {
					continue
				}
				fmt.Fprintf(&b, "- %v: %s\n", c[1], t.Descriptions[ci])
			}
			b.WriteString("\n")
		}
		if s, ok := t.ValueEnums.(string); ok && s != "" {
			b.WriteString("## Values\n\n" + s + "\n")
		} else if t.ValueEnums != nil && t.ValueEnums != "" {
			raw, _ := json.Marshal(t.ValueEnums) // decoded JSON always marshals
			b.WriteString("## Values\n\n" + string(raw) + "\n")
		}
		out[t.DB] = b.String()
	}
	return out, nil
}

// pipelineYAML is the pipeline of every bundle: the markdown documents and
// the CSV and SQLite tables of one directory (sources), names not
// embedded, Neo4j left alone, extraction skipped unless asked.
const pipelineYAML = `name: agentq
root: .
output: out
sources:
%sllm:
  chat_model: %q
  embed_model: all-minilm:l6-v2
resolve:
  embeddings: false
neo4j:
  mode: never
extract:
  skip: %v
`

// BuildBundle builds the bundle of one source directory with kgforge's
// own runner, once: a directory built before is opened as it is. It
// returns the bundle's directory.
func BuildBundle(ctx context.Context, bo Build, client *llm.Client, src string) (string, error) {
	out := filepath.Join(src, "out")
	if b, err := bundle.Open(out); err == nil {
		return b.Dir, b.Close()
	}
	var sources strings.Builder
	for _, pattern := range []string{"*.md", "*.csv", "*.sqlite"} {
		if m, _ := filepath.Glob(filepath.Join(src, pattern)); len(m) > 0 {
			fmt.Fprintf(&sources, "  - name: %s\n    paths: [%q]\n", strings.TrimPrefix(pattern, "*."), pattern)
		}
	}
	path := filepath.Join(src, "pipeline.yaml")
	if err := os.WriteFile(path, fmt.Appendf(nil, pipelineYAML, sources.String(), bo.Model, !bo.Extract), 0o644); err != nil {
		return "", err
	}
	p, err := pipelines.Load(path)
	if err != nil {
		return "", err
	}
	rn := &stages.Runner{LLM: client, CacheDir: CacheDir(), OutDir: out, Log: slog.New(slog.DiscardHandler)}
	rep, err := rn.Run(ctx, p)
	if err != nil {
		return "", fmt.Errorf("build %s: %w", src, err)
	}
	return rep.Bundle, nil
}

// CacheDir is the build cache: kgforge's own (stages.DefaultCacheDir).
func CacheDir() string { return stages.DefaultCacheDir() }

// copyFile copies a benchmark file into a bundle's source directory
// (a temporary one, never the repository).
func copyFile(dst, src string) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, raw, 0o644)
}
