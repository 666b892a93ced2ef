package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func init() {
	ingest.RegisterTable(kg.KindSQLite, sqliteLoader{})
	ingest.RegisterTable(kg.KindDuckDB, duckdbLoader{})
	ingest.RegisterTable(kg.KindPostgres, postgresLoader{})
}

// tableRef is a table (or view) of a source database.
type tableRef struct {
	schema string // empty where the database has none (SQLite)
	name   string
	// all says the table is loaded when Options.Tables is empty; views,
	// partitions and tables the user may not read are loaded only by name.
	all bool
}

// origin is how a table is named in Options.Tables and in Loaded.Origin:
// its bare name in the database's default schema, schema.name elsewhere.
func (t tableRef) origin(defaultSchema string) string {
	if t.schema == "" || t.schema == defaultSchema {
		return t.name
	}
	return t.schema + "." + t.name
}

// pick returns the tables of have that want names, in want's order and
// without repeats, or, when want is empty, every table of have marked all.
// A name is "table" (in defaultSchema) or "schema.table" (when defaultSchema
// is not empty); it matches exactly, or else case-insensitively when that
// finds one table only. A name that matches nothing is an error that lists
// the tables there are.
func pick(have []tableRef, want []string, defaultSchema string) ([]tableRef, error) {
	if len(want) == 0 {
		var out []tableRef
		for _, t := range have {
			if t.all {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			return nil, errors.New("the database has no tables")
		}
		return out, nil
	}
	var out []tableRef
	var missing []string
	for _, w := range want {
		schema, name := defaultSchema, w
		if defaultSchema != "" {
			if s, n, ok := strings.Cut(w, "."); ok {
				schema, name = s, n
			}
		}
		t, ok := find(have, schema, name)
		switch {
		case !ok:
			missing = append(missing, strconv.Quote(w))
		case !slices.Contains(out, t):
			out = append(out, t)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no table %s in the database (it has %s)", strings.Join(missing, ", "), listTables(have, defaultSchema))
	}
	return out, nil
}

func find(have []tableRef, schema, name string) (tableRef, bool) {
	for _, t := range have {
		if t.schema == schema && t.name == name {
			return t, true
		}
	}
	var found []tableRef
	for _, t := range have {
		if strings.EqualFold(t.schema, schema) && strings.EqualFold(t.name, name) {
			found = append(found, t)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return tableRef{}, false
}

// listTables names the tables of have for an error message, at most 30.
func listTables(have []tableRef, defaultSchema string) string {
	if len(have) == 0 {
		return "no tables"
	}
	const most = 30
	var names []string
	for i, t := range have {
		if i == most {
			names = append(names, fmt.Sprintf("and %d more", len(have)-most))
			break
		}
		names = append(names, t.origin(defaultSchema))
	}
	return strings.Join(names, ", ")
}

// tableWant is the DuckDB table name a loader asks TableInput.Name for: the
// source's base name and the table's joined by "_". The base is reduced by
// ingest.TableName first, and the table's dots and other punctuation become
// "_": TableName strips what follows the last dot as an extension, which
// would drop the table's name from "erp.sqlite_suppliers" or "crm_sales.orders".
func tableWant(base, table string) string {
	t := strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, table)
	return ingest.TableName(base) + "_" + t
}

// rejected turns err, met while loading in's source, into the source's
// rejection — unless the build is being cancelled, which is not the
// source's fault: then it returns the context's error. When DuckDB blamed
// the file (a *duck.InputError) the rejection says what is wrong with it,
// with DuckDB's message after, and names the source rather than its local
// path.
func rejected(ctx context.Context, in ingest.TableInput, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("source %s: %w", in.Source.URI, context.Cause(ctx))
	}
	if ie, ok := errors.AsType[*duck.InputError](err); ok && in.Path != "" {
		return fmt.Errorf("source %s: %w: %s", in.Source.URI, kg.ErrRejected, strings.ReplaceAll(ie.Message(), in.Path, in.Source.URI))
	}
	return fmt.Errorf("source %s: %w: %w", in.Source.URI, kg.ErrRejected, err)
}

// dropLoaded drops the tables a failed load made, so that none of its
// source is left behind. It runs even when the build is being cancelled.
func dropLoaded(ctx context.Context, db *sql.DB, loaded []ingest.Loaded) error {
	var errs []error
	for _, l := range loaded {
		if _, err := db.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+duck.QuoteIdent(l.Name)); err != nil {
			errs = append(errs, fmt.Errorf("drop table %s: %w", l.Name, err))
		}
	}
	return errors.Join(errs...)
}

// columnNames makes names usable as the columns of one DuckDB table: an
// empty name becomes column_N (N from 1), and a name already taken —
// DuckDB's names are case-insensitive — gets _2, _3, ….
func columnNames(names []string) []string {
	out := make([]string, len(names))
	taken := map[string]bool{}
	for i, n := range names {
		if n == "" {
			n = fmt.Sprintf("column_%d", i+1)
		}
		u := n
		for k := 2; taken[strings.ToLower(u)]; k++ {
			u = fmt.Sprintf("%s_%d", n, k)
		}
		taken[strings.ToLower(u)] = true
		out[i] = u
	}
	return out
}

// quoteIdent quotes an identifier for SQLite and PostgreSQL, which both
// double the quote character inside.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
