package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"kgforge/agent/eval"
	"kgforge/bundle"
	"kgforge/llm"
)

// sqlExample is one text-to-SQL question with its gold SQL (Spider's
// dev.json and KaggleDBQA's examples share these fields).
type sqlExample struct {
	DB       string `json:"db_id"`
	Question string `json:"question"`
	Query    string `json:"query"`
}

// sampleSpider samples -n questions of Spider's dev set.
func sampleSpider(ctx context.Context, o options, client *llm.Client) (*set, error) {
	var ex []sqlExample
	if err := readJSON(filepath.Join(o.data, "sql-qa", "spider", "dev.json"), &ex); err != nil {
		return nil, err
	}
	db := func(id string) string { return filepath.Join(o.data, "sql-qa", "spider", "database", id, id+".sqlite") }
	return sampleSQL(ctx, o, client, "spider", ex, db, nil)
}

// sampleKaggle samples -n questions of KaggleDBQA; each database's
// documentation (overview, column descriptions, value meanings) becomes a
// document of its bundle, since the meaning of its columns is there.
func sampleKaggle(ctx context.Context, o options, client *llm.Client) (*set, error) {
	dir := filepath.Join(o.data, "sql-qa", "kaggle-dbqa")
	files, err := filepath.Glob(filepath.Join(dir, "examples", "*_fewshot.json"))
	if err != nil {
		return nil, err
	}
	var ex []sqlExample
	for _, f := range files {
		var part []sqlExample
		if err := readJSON(f, &part); err != nil {
			return nil, err
		}
		ex = append(ex, part...)
	}
	docs, err := kaggleDocs(filepath.Join(dir, "KaggleDBQA_tables.json"))
	if err != nil {
		return nil, err
	}
	db := func(id string) string { return filepath.Join(dir, "databases", id+".sqlite") }
	return sampleSQL(ctx, o, client, "kaggle", ex, db, docs)
}

// sampleSQL takes questions in a seeded order and keeps those whose gold
// SQL, run over the built bundle, gives a non-empty result of at most ten
// rows; that result is the gold answer.
func sampleSQL(ctx context.Context, o options, client *llm.Client, name string, ex []sqlExample, dbFile func(string) string, docs map[string]string) (*set, error) {
	s := &set{name: name, skipped: map[string]int{}}
	rng := rand.New(rand.NewPCG(o.seed, 2)) //nolint:gosec // sampling, not secrets
	gold := map[string]*goldRunner{}
	defer func() {
		for _, g := range gold {
			_ = g.close()
		}
	}()
	for _, i := range rng.Perm(len(ex)) {
		if len(s.items) >= o.n {
			break
		}
		e := ex[i]
		src := filepath.Join(o.work, name, e.DB)
		g, ok := gold[e.DB]
		if !ok {
			var err error
			if g, err = newGoldRunner(ctx, o, client, src, dbFile(e.DB), docs[e.DB]); err != nil {
				return nil, fmt.Errorf("database %s: %w", e.DB, err)
			}
			gold[e.DB] = g
		}
		q, reason := g.question(ctx, fmt.Sprintf("%s-%s-%d", name, e.DB, i), e)
		if reason != "" {
			s.skipped[reason]++
			continue
		}
		s.items = append(s.items, item{src: src, q: q})
	}
	return s, nil
}

// goldRunner runs gold SQL over one built bundle.
type goldRunner struct {
	b      *bundle.Bundle
	query  func(ctx context.Context, q string, maxRows int) ([]string, [][]string, bool, error)
	close  func() error
	rename map[string]string // the database's table name (lower case) -> the bundle's
}

func newGoldRunner(ctx context.Context, o options, client *llm.Client, src, db, doc string) (*goldRunner, error) {
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
	dir, err := buildBundle(ctx, o, client, src)
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
	g := &goldRunner{b: b, query: sb.Query, close: func() error { return errors.Join(sb.Close(), b.Close()) }, rename: map[string]string{}}
	for _, t := range tables {
		if t.Origin != "" {
			g.rename[strings.ToLower(t.Origin)] = t.Name
		}
	}
	return g, nil
}

var (
	identRE  = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	dquoteRE = regexp.MustCompile(`"([^"]*)"`)
)

// rewrite makes SQLite gold SQL run over the bundle: the database's table
// names become the bundle's, and double-quoted strings single-quoted.
func (g *goldRunner) rewrite(q string) string {
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

// question runs e's gold SQL and makes the harness question of its
// result, or says why it cannot.
func (g *goldRunner) question(ctx context.Context, id string, e sqlExample) (eval.Question, string) {
	sql := g.rewrite(e.Query)
	_, rows, truncated, err := g.query(ctx, sql, 10)
	switch {
	case err != nil:
		return eval.Question{}, "gold SQL fails over the bundle"
	case truncated:
		return eval.Question{}, "gold result over ten rows"
	case len(rows) == 0:
		return eval.Question{}, "gold result empty"
	}
	q := eval.Question{ID: id, Question: e.Question, SQL: sql, Needs: []string{"table"}}
	switch {
	case len(rows) == 1 && len(rows[0]) == 1:
		if n, err := strconv.ParseFloat(rows[0][0], 64); err == nil {
			q.Kind, q.Answer = eval.KindNumber, n
		} else {
			q.Kind, q.Answer = eval.KindText, rows[0][0]
		}
	case len(rows[0]) == 1:
		var items []string
		for _, r := range rows {
			items = append(items, r[0])
		}
		q.Kind, q.Answer = eval.KindList, items
	default:
		q.Kind, q.Answer = eval.KindTable, rows
	}
	if err := q.Prepare(); err != nil {
		return eval.Question{}, "gold result not an answer"
	}
	return q, ""
}

func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
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
	if err := readJSON(path, &ts); err != nil {
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
