package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/internal/duck"
)

// Names of the tools the loop treats specially.
const (
	ToolLs     = "ls"
	ToolCat    = "cat"
	ToolQuery  = "query"
	ToolThink  = "think"
	ToolAnswer = "answer"
)

// MaxRows bounds the rows one query returns.
const MaxRows = 50

func (t *Toolbox) baseTools() []Tool {
	return []Tool{
		{
			Name: ToolLs, Description: "List the bundle: its files and SQL tables.",
			Params: json.RawMessage(`{"type":"object","properties":{}}`),
			Run:    func(ctx context.Context, _ json.RawMessage) (string, error) { return t.ls(ctx), nil },
		},
		{
			Name: ToolCat, Description: "Show one bundle file: a table file's first rows, a text file's start.",
			Params: json.RawMessage(`{"type":"object","required":["name"],"properties":{"name":{"type":"string","description":"a file name from ls"}}}`),
			Run:    t.runCat,
		},
		{
			Name: ToolQuery, Description: fmt.Sprintf("Run one read-only SQL SELECT over the bundle's tables; at most %d rows.", MaxRows),
			Params: json.RawMessage(`{"type":"object","required":["sql"],"properties":{"sql":{"type":"string","description":"one SELECT statement"}}}`),
			Run:    t.runQuery,
		},
		{
			Name: ToolThink, Description: "Write down a thought or a plan; nothing is looked up.",
			Params: json.RawMessage(`{"type":"object","required":["thought"],"properties":{"thought":{"type":"string"}}}`),
			Run: func(_ context.Context, args json.RawMessage) (string, error) {
				var a struct{ Thought string }
				if err := decode(ToolThink, json.RawMessage(`{"thought":"..."}`), args, &a); err != nil {
					return "", err
				}
				return "noted", nil
			},
		},
		{
			Name: ToolAnswer, Description: "Give the final answer, with citations (node ids, table rows, chunk ids) and a confidence from 0 to 1.",
			Params: json.RawMessage(`{"type":"object","required":["answer"],"properties":{"answer":{"type":"string"},"confidence":{"type":"number","minimum":0,"maximum":1},"citations":{"type":"array","items":{"type":"object","required":["kind","id"],"properties":{"kind":{"type":"string","enum":["node","edge","row","chunk"]},"id":{"type":"string"},"table":{"type":"string"}}}}}}`),
			Run: func(_ context.Context, args json.RawMessage) (string, error) {
				var a AnswerArgs
				if err := decode(ToolAnswer, json.RawMessage(`{"answer":"...","confidence":0.5,"citations":[{"kind":"node","id":"..."}]}`), args, &a); err != nil {
					return "", err
				}
				return "answered", nil
			},
		},
	}
}

func (t *Toolbox) ls(ctx context.Context) string {
	var b strings.Builder
	for _, f := range t.b.Files() {
		if info, ok := t.b.Manifest.Files[f]; ok {
			fmt.Fprintf(&b, "%s\t%d bytes\n", f, info.Bytes)
		} else {
			fmt.Fprintf(&b, "%s\n", f)
		}
	}
	_, rows, _, err := t.sb.Query(ctx, "SELECT string_agg(table_name, ', ' ORDER BY table_name) FROM information_schema.tables", 1)
	if err == nil && len(rows) == 1 {
		b.WriteString("SQL tables and views: " + rows[0][0])
	}
	return b.String()
}

func (t *Toolbox) runCat(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{ Name string }
	if err := decode(ToolCat, json.RawMessage(`{"name":"nodes.parquet"}`), args, &a); err != nil {
		return "", err
	}
	name := strings.TrimSpace(a.Name)
	if view, ok := strings.CutSuffix(name, ".parquet"); ok && slices.Contains(t.b.Files(), name) {
		return t.query(ctx, "SELECT * FROM "+duck.QuoteIdent(view)+" LIMIT 10", 10)
	}
	if name == bundle.DataFile {
		return t.query(ctx, "SELECT table_name, estimated_size AS rows FROM duckdb_tables() WHERE database_name = 'data'", MaxRows)
	}
	raw, err := t.b.ReadFile(name, MaxResult)
	if err != nil {
		return "", &CallError{Tool: ToolCat, Kind: FailNotFound, Msg: err.Error(), Hint: "name a file that ls lists"}
	}
	return string(raw), nil
}

func (t *Toolbox) runQuery(ctx context.Context, args json.RawMessage) (string, error) {
	var a struct{ SQL string }
	if err := decode(ToolQuery, json.RawMessage(`{"sql":"SELECT ..."}`), args, &a); err != nil {
		return "", err
	}
	return t.query(ctx, a.SQL, MaxRows)
}

// query runs q in the sandbox. A refused statement names its type, a query
// stopped at the time or memory limit says so and what to change
// (duck.LimitError); both are the model's to act on.
func (t *Toolbox) query(ctx context.Context, q string, maxRows int) (string, error) {
	cols, rows, truncated, err := t.sb.Query(ctx, q, maxRows)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		if le := (*duck.LimitError)(nil); errors.As(err, &le) {
			return "", &CallError{Tool: ToolQuery, Kind: FailLimit, Msg: err.Error()} // it says what to change
		}
		return "", &CallError{Tool: ToolQuery, Kind: FailSQL, Msg: err.Error(), Hint: "send one read-only SELECT; ls and cat show the tables and columns"}
	}
	var b strings.Builder
	b.WriteString(strings.Join(cols, "\t"))
	for _, r := range rows {
		b.WriteString("\n" + strings.Join(r, "\t"))
	}
	if truncated {
		fmt.Fprintf(&b, "\n… (first %d rows; add a WHERE, an aggregate or a LIMIT)", maxRows)
	}
	return b.String(), nil
}
