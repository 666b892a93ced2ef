package duck

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Errors of Query. A refused statement wraps ErrNotReadOnly; one that names
// a file wraps ErrNoFiles; a query stopped at a limit is a *LimitError that
// wraps ErrTimeLimit or ErrMemoryLimit.
var (
	ErrNotReadOnly = errors.New("only one read-only query is allowed (SELECT, WITH, FROM, VALUES, TABLE, DESCRIBE, SHOW, SUMMARIZE)")
	ErrNoFiles     = errors.New("the sandbox opens no files: query its tables instead (SHOW TABLES lists them)")
	ErrTimeLimit   = errors.New("the sandbox's time limit")
	ErrMemoryLimit = errors.New("the sandbox's memory limit")
)

// LimitError means a query was stopped at one of the sandbox's limits. Its
// message is short and says what to change in the query; Unwrap gives the
// limit's sentinel and DuckDB's own error.
type LimitError struct {
	msg          string
	limit, cause error
}

// Error returns the short message meant for the user or the model.
func (e *LimitError) Error() string { return e.msg }

// Unwrap returns the limit's sentinel and DuckDB's error.
func (e *LimitError) Unwrap() []error { return []error{e.limit, e.cause} }

const limitHint = "add a WHERE or a LIMIT, or aggregate before joining"

// Query runs one read-only statement and returns its column names and up to
// maxRows rows rendered as text (see render), and whether rows were cut.
//
// DuckDB's own parser classifies the statement before anything runs: only
// one statement of type SELECT is accepted (DESCRIBE, SHOW, SUMMARIZE and the
// PRAGMAs that DuckDB rewrites into a query are SELECTs to it); EXPLAIN,
// which with ANALYZE executes its statement, and every other type are
// refused with an error that wraps ErrNotReadOnly and names the type. The
// statement that runs is the very one that was classified.
func (s *Sandbox) Query(ctx context.Context, query string, maxRows int) (cols []string, rows [][]string, truncated bool, err error) {
	qctx, cancel := context.WithTimeout(ctx, s.lim.Timeout)
	defer cancel()
	conn, err := s.db.Conn(qctx)
	if err != nil {
		return nil, nil, false, s.explain(ctx, err)
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	err = conn.Raw(func(dc any) error {
		var err error
		cols, rows, truncated, err = runReadOnly(qctx, dc, query, maxRows)
		return err
	})
	if err != nil {
		return nil, nil, false, s.explain(ctx, err)
	}
	return cols, rows, truncated, nil
}

// runReadOnly prepares query on the driver connection dc, refuses it unless
// it is one SELECT, and runs the prepared statement.
func runReadOnly(ctx context.Context, dc any, query string, maxRows int) (cols []string, rows [][]string, truncated bool, err error) {
	c, ok := dc.(driver.Conn)
	if !ok {
		return nil, nil, false, fmt.Errorf("sandbox: unexpected driver connection %T", dc)
	}
	// Prepare, unlike PrepareContext, refuses a string of several
	// statements instead of running all but the last.
	st, err := c.Prepare(query)
	if err != nil {
		if strings.Contains(err.Error(), "multi-statement") {
			return nil, nil, false, fmt.Errorf("more than one statement: %w", ErrNotReadOnly)
		}
		return nil, nil, false, err
	}
	defer func() { err = errors.Join(err, st.Close()) }()
	ds, ok := st.(*duckdb.Stmt)
	if !ok {
		return nil, nil, false, fmt.Errorf("sandbox: unexpected driver statement %T", st)
	}
	if err := checkReadOnly(ds); err != nil {
		return nil, nil, false, err
	}
	r, err := ds.QueryContext(ctx, nil)
	if err != nil {
		return nil, nil, false, err
	}
	defer func() { err = errors.Join(err, r.Close()) }()
	return readRows(r, maxRows)
}

// checkReadOnly refuses a prepared statement that is not a SELECT.
func checkReadOnly(st *duckdb.Stmt) error {
	t, err := st.StatementType()
	if err != nil {
		return err
	}
	if t == duckdb.STATEMENT_TYPE_SELECT {
		return nil
	}
	name, ok := statementNames[mapping.StatementType(t)]
	if !ok {
		name = fmt.Sprintf("type %d", t)
	}
	return fmt.Errorf("%s statement refused: %w", name, ErrNotReadOnly)
}

// statementNames names DuckDB's statement types as a user would write them.
var statementNames = map[mapping.StatementType]string{
	mapping.StatementTypeInvalid:     "invalid",
	mapping.StatementTypeInsert:      "INSERT",
	mapping.StatementTypeUpdate:      "UPDATE",
	mapping.StatementTypeExplain:     "EXPLAIN",
	mapping.StatementTypeDelete:      "DELETE",
	mapping.StatementTypePrepare:     "PREPARE",
	mapping.StatementTypeCreate:      "CREATE",
	mapping.StatementTypeExecute:     "EXECUTE",
	mapping.StatementTypeAlter:       "ALTER",
	mapping.StatementTypeTransaction: "transaction (BEGIN, COMMIT, ROLLBACK)",
	mapping.StatementTypeCopy:        "COPY",
	mapping.StatementTypeAnalyze:     "ANALYZE",
	mapping.StatementTypeVariableSet: "SET VARIABLE",
	mapping.StatementTypeCreateFunc:  "CREATE FUNCTION",
	mapping.StatementTypeDrop:        "DROP",
	mapping.StatementTypeExport:      "EXPORT",
	mapping.StatementTypePragma:      "PRAGMA",
	mapping.StatementTypeVacuum:      "VACUUM",
	mapping.StatementTypeCall:        "CALL (or CHECKPOINT)",
	mapping.StatementTypeSet:         "SET (or RESET, USE)",
	mapping.StatementTypeLoad:        "LOAD (or INSTALL)",
	mapping.StatementTypeRelation:    "relation",
	mapping.StatementTypeExtension:   "extension",
	mapping.StatementTypeLogicalPlan: "logical plan",
	mapping.StatementTypeAttach:      "ATTACH",
	mapping.StatementTypeDetach:      "DETACH",
	mapping.StatementTypeMulti:       "multi-statement",
	// Types the mapping package does not name yet (DuckDB's C API does).
	mapping.StatementTypeMulti + 1: "COPY FROM DATABASE",
	mapping.StatementTypeMulti + 2: "UPDATE EXTENSIONS",
	mapping.StatementTypeMulti + 3: "MERGE INTO",
}

// readRows reads up to maxRows rows of r as text.
func readRows(r driver.Rows, maxRows int) (cols []string, rows [][]string, truncated bool, err error) {
	cols = r.Columns()
	types := make([]string, len(cols))
	if tn, ok := r.(driver.RowsColumnTypeDatabaseTypeName); ok {
		for i := range types {
			types[i] = tn.ColumnTypeDatabaseTypeName(i)
		}
	}
	vals := make([]driver.Value, len(cols))
	for {
		if err := r.Next(vals); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, false, err
		}
		if len(rows) == maxRows {
			truncated = true
			break
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = render(v, types[i])
		}
		rows = append(rows, row)
	}
	return cols, rows, truncated, nil
}

// explain turns a query stopped at a limit into a *LimitError; ctx is the
// caller's, so that a caller who gave up gets its own error back.
func (s *Sandbox) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &LimitError{
			msg:   fmt.Sprintf("query stopped after %s, %v: %s", s.lim.Timeout, ErrTimeLimit, limitHint),
			limit: ErrTimeLimit, cause: err,
		}
	}
	var de *duckdb.Error
	switch {
	case !errors.As(err, &de):
	case de.Type == duckdb.ErrorTypeOutOfMemory:
		return &LimitError{
			msg:   fmt.Sprintf("query stopped at %s, %v: %s", s.lim.MemoryLimit, ErrMemoryLimit, limitHint),
			limit: ErrMemoryLimit, cause: err,
		}
	case de.Type == duckdb.ErrorTypePermission:
		// DuckDB refuses every file (COPY, EXPORT, read_csv, ...) when it
		// binds the statement, before it can be classified.
		return fmt.Errorf("%w (%w)", ErrNoFiles, err)
	}
	return err
}
