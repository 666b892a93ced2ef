package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kgforge/ingest"
	_ "kgforge/ingest/all"
	"kgforge/internal/duck"
	"kgforge/kg"
)

const (
	exampleDir = "../../examples/bikeco"
	goldFile   = "testdata/bikeco.gold.yaml"
)

// example is the example corpus as the build reads it: its tables loaded
// into DuckDB through ingest, and the text of each page of its PDF.
type example struct {
	db     *sql.DB
	tables map[string]kg.Table
	pages  map[string]map[int]string // PDF file → page → text
	lines  map[string][]string       // text-like file → its lines
}

func loadExample(t *testing.T) *example {
	t.Helper()
	ctx := context.Background()
	root, err := os.OpenRoot(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = root.Close() })
	db, err := duck.Open(ctx, "", duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	found, err := ingest.Discover(root, []string{"docs/*", "web/*", "logs/*", "data/*"}, "")
	if err != nil {
		t.Fatal(err)
	}
	ex := &example{db: db, tables: map[string]kg.Table{}, pages: map[string]map[int]string{}, lines: map[string][]string{}}
	taken := map[string]bool{}
	name := func(want string) string { return ingest.UniqueName(taken, ingest.TableName(want)) }
	for _, f := range found {
		o, err := ingest.Open(root, exampleDir, f, ingest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case o.Source.Kind.IsTable():
			ts, err := ingest.LoadTables(ctx, db, ingest.TableInput{Source: o.Source, Path: o.Path, Base: ingest.TableName(f.Rel), Name: name})
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range ts {
				ex.tables[tb.Name] = tb
			}
		case o.Source.Kind == kg.KindPDF:
			doc, err := ingest.ReadDocument(ctx, o.Source, o.Data, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ex.pages[f.Rel] = map[int]string{}
			for _, s := range doc.Sections {
				ex.pages[f.Rel][s.Page] += doc.Text[s.Span.Start:s.Span.End]
			}
		default:
			ex.lines[f.Rel] = strings.Split(string(o.Data), "\n")
		}
	}
	return ex
}

func (ex *example) hasColumn(table, column string) bool {
	tb, ok := ex.tables[table]
	return ok && slices.ContainsFunc(tb.Columns, func(c kg.Column) bool { return c.Name == column })
}

func (ex *example) hasTarget(target string) bool {
	table, column, isColumn := strings.Cut(target, ".")
	if !isColumn {
		_, ok := ex.tables[table]
		return ok
	}
	return ex.hasColumn(table, column)
}

// row returns a row of a table by its key column, as text by column.
func (ex *example) row(t *testing.T, table, keyCol, key string) map[string]string {
	t.Helper()
	rows, err := ex.db.QueryContext(context.Background(),
		fmt.Sprintf("SELECT * FROM %s WHERE CAST(%s AS VARCHAR) = ?", duck.QuoteIdent(table), duck.QuoteIdent(keyCol)), key)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }() // a read-only query: Err above is what counts
	cols, _ := rows.Columns()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, c := range cols {
		out[c] = vals[i].String
	}
	return out
}

// keys returns every key of a table.
func (ex *example) keys(t *testing.T, table, keyCol string) []string {
	t.Helper()
	rows, err := ex.db.QueryContext(context.Background(),
		fmt.Sprintf("SELECT CAST(%s AS VARCHAR) FROM %s ORDER BY 1", duck.QuoteIdent(keyCol), duck.QuoteIdent(table)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rows.Close() }() // a read-only query: Err above is what counts
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// textAt returns the text of a FILE:LINE or FILE#page=N place.
func (ex *example) textAt(at string) (string, bool) {
	if file, page, ok := strings.Cut(at, "#page="); ok {
		n, _ := strconv.Atoi(page)
		s, ok := ex.pages[file][n]
		return s, ok
	}
	i := strings.LastIndex(at, ":")
	n, _ := strconv.Atoi(at[i+1:])
	lines := ex.lines[at[:i]]
	if n < 1 || n > len(lines) {
		return "", false
	}
	return lines[n-1], true
}

// places returns every line and page of the example's documents.
func (ex *example) places() map[string]string {
	out := map[string]string{}
	for f, lines := range ex.lines {
		for i, l := range lines {
			out[fmt.Sprintf("%s:%d", f, i+1)] = l
		}
	}
	for f, pages := range ex.pages {
		for n, s := range pages {
			out[fmt.Sprintf("%s#page=%d", f, n)] = s
		}
	}
	return out
}

func loadGold(t *testing.T) *Gold {
	t.Helper()
	g, err := LoadGold(goldFile)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGoldMatchesTheExampleTables: every table, column and row the gold
// names exists in the example's data as the build loads it, every table of
// the example is judged, every row of an entity table is in the gold under
// its own name, and every foreign key holds in the data.
func TestGoldMatchesTheExampleTables(t *testing.T) {
	g, ex := loadGold(t), loadExample(t)
	judged := map[string]GoldTable{}
	for _, tb := range g.Tables {
		judged[tb.Table] = tb
		if _, ok := ex.tables[tb.Table]; !ok {
			t.Errorf("tables: %s is no table of the example", tb.Table)
		}
		if tb.Entities && (!ex.hasColumn(tb.Table, tb.Key) || !ex.hasColumn(tb.Table, tb.Name)) {
			t.Errorf("tables: %s has no column %s or %s", tb.Table, tb.Key, tb.Name)
		}
	}
	for name := range ex.tables {
		if _, ok := judged[name]; !ok {
			t.Errorf("table %s of the example is not in the gold's tables", name)
		}
	}
	inGold := map[string]bool{}
	for _, r := range g.Rows {
		inGold[r.Row] = true
		table, key, _ := ParseRow(r.Row)
		tb := judged[table]
		row := ex.row(t, table, tb.Key, key)
		if row == nil || row[tb.Name] != r.Name {
			t.Errorf("rows: %s is %v in the data; the gold names it %q", r.Row, row, r.Name)
		}
	}
	for _, tb := range g.Tables {
		if !tb.Entities {
			continue
		}
		for _, k := range ex.keys(t, tb.Table, tb.Key) {
			if !inGold[kg.RowTarget(tb.Table, k)] {
				t.Errorf("row %s of the entity table is not in the gold's rows", kg.RowTarget(tb.Table, k))
			}
		}
	}
	for _, fk := range g.FKs {
		ft, fkey, _ := ParseRow(fk.From)
		_, tkey, _ := ParseRow(fk.To)
		row := ex.row(t, ft, judged[ft].Key, fkey)
		if !slices.ContainsFunc(mapValues(row), func(v string) bool { return v == tkey }) {
			t.Errorf("fks: %s has no column holding %s: %v", fk.From, tkey, row)
		}
	}
	for _, c := range g.Concepts {
		for _, target := range append(append([]string{}, c.Targets...), c.Also...) {
			if !ex.hasTarget(target) {
				t.Errorf("concept %s: target %s is no table or column of the example", c.Concept, target)
			}
		}
	}
	for _, r := range g.Rules {
		for _, target := range append(append([]string{}, r.Targets...), r.Also...) {
			if !ex.hasTarget(target) {
				t.Errorf("rule %q: target %s is no column of the example", r.Rule, target)
			}
		}
	}
	for _, v := range g.Values {
		for _, col := range v.Columns {
			if !ex.hasTarget(col) || !ex.columnHolds(t, col, v) {
				t.Errorf("value %s: column %s does not exist or holds neither it nor an alias", v.Name, col)
			}
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// columnHolds reports whether a column holds a value's name, an alias, or
// a word of one (orders.plant holds "Porto" of "Porto plant").
func (ex *example) columnHolds(t *testing.T, col string, v GoldValue) bool {
	t.Helper()
	table, column, _ := strings.Cut(col, ".")
	var n int
	names := append([]string{v.Name}, v.Aliases...)
	err := ex.db.QueryRowContext(context.Background(),
		fmt.Sprintf("SELECT count(*) FROM %s WHERE CAST(%s AS VARCHAR) IN (SELECT unnest(?::VARCHAR[]))",
			duck.QuoteIdent(table), duck.QuoteIdent(column)), "["+strings.Join(quoteAll(names), ",")+"]").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "'" + strings.ReplaceAll(n, "'", "''") + "'"
	}
	return out
}

// TestGoldMatchesTheExampleDocuments: every place the gold cites holds the
// name it cites it for, and every line or page of the documents that holds
// a row's surface is cited for that row (so the gold's mentions are all
// the mentions). A place cited for a longer surface of the same row covers
// the shorter one ("Kestrel Alloys Ltd." covers "Kestrel Alloys").
func TestGoldMatchesTheExampleDocuments(t *testing.T) {
	g, ex := loadGold(t), loadExample(t)
	check := func(what, name string, at []string) {
		for _, a := range at {
			text, ok := ex.textAt(a)
			if !ok {
				t.Errorf("%s: place %s does not exist", what, a)
			} else if !containsWords(Key(text), Key(name)) {
				t.Errorf("%s: %s does not hold %q: %q", what, a, name, text)
			}
		}
	}
	for _, r := range g.Rows {
		for _, s := range r.Surfaces {
			check("row "+r.Row, s.Name, s.At)
		}
	}
	for _, v := range g.Values {
		for _, a := range v.At {
			if !slices.ContainsFunc(append([]string{v.Name}, v.Aliases...), func(n string) bool {
				text, _ := ex.textAt(a)
				return containsWords(Key(text), Key(n))
			}) {
				t.Errorf("value %s: %s holds neither it nor an alias", v.Name, a)
			}
		}
	}
	for _, r := range g.Rules {
		check("rule", r.Rule, []string{r.At})
	}
	places := ex.places()
	for _, r := range g.Rows {
		for _, s := range r.Surfaces {
			for place, text := range places {
				if containsWords(Key(text), Key(s.Name)) && !cited(r, s, place) {
					t.Errorf("row %s: %s holds %q but the gold does not cite it", r.Row, place, s.Name)
				}
			}
		}
	}
}

// cited reports whether the gold cites place for surface s of row r, or
// for a longer surface of r that contains it.
func cited(r GoldRow, s GoldSurface, place string) bool {
	for _, o := range r.Surfaces {
		if containsWords(Key(o.Name), Key(s.Name)) && slices.Contains(o.At, place) {
			return true
		}
	}
	return false
}

// whyPlace is the FILE:LINE a why starts with.
var whyPlace = regexp.MustCompile(`^([a-z][^ :]*\.(?:md|txt|log|html|csv)):([0-9]+)\b`)

// TestGoldWhyCitesTheRightLines: a why that starts with FILE:LINE cites a
// line that holds the entry's name (a person) or key (a row of a CSV).
func TestGoldWhyCitesTheRightLines(t *testing.T) {
	g := loadGold(t)
	line := func(file string, n int) string {
		b, err := os.ReadFile(filepath.Join(exampleDir, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		if n < 1 || n > len(lines) {
			return ""
		}
		return lines[n-1]
	}
	checkWhy := func(what, why, want string) {
		m := whyPlace.FindStringSubmatch(why)
		if m == nil {
			t.Errorf("%s: why %q does not start with FILE:LINE", what, why)
			return
		}
		n, _ := strconv.Atoi(m[2])
		if l := line(m[1], n); !strings.Contains(l, want) {
			t.Errorf("%s: %s:%d is %q, without %q", what, m[1], n, l, want)
		}
	}
	for _, p := range g.Persons {
		checkWhy("person "+p.Name, p.Why, p.Name)
	}
	for _, r := range g.Rows {
		_, key, _ := ParseRow(r.Row)
		checkWhy("row "+r.Row, r.Why, key+","+r.Name+",")
	}
	for _, fk := range g.FKs {
		_, from, _ := ParseRow(fk.From)
		_, to, _ := ParseRow(fk.To)
		checkWhy("fk "+fk.From, fk.Why, from)
		checkWhy("fk "+fk.From, fk.Why, ","+to+",")
	}
}

// TestGoldNamesArePersonsNotCompanies: a person of the gold is no row,
// value or duplicate of a company, so the persons check cannot contradict
// the rest of the file.
func TestGoldNamesArePersonsNotCompanies(t *testing.T) {
	g := loadGold(t)
	others := goldRowOfName(g)
	for k := range valueColumns(g) {
		others[k] = "value"
	}
	for _, p := range g.Persons {
		if what, ok := others[Key(p.Name)]; ok {
			t.Errorf("person %s is also %s in the gold", p.Name, what)
		}
	}
}
