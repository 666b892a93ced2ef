package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// answerParams is the answer tool's schema.
var answerParams = json.RawMessage(`{"type":"object","required":["answer","confidence"],"properties":{` +
	`"answer":{"type":"string","minLength":1},` +
	`"confidence":{"type":"number","minimum":0,"maximum":1},` +
	`"citations":{"type":"array","items":{"type":"object","required":["kind","id"],"properties":{` +
	`"kind":{"type":"string","enum":["node","edge","row","chunk"]},` +
	`"id":{"type":"string","description":"node, edge or chunk id; for a row, its key value"},` +
	`"table":{"type":"string","description":"a row's table"},` +
	`"source":{"type":"string","description":"a chunk's source; filled in when omitted"},` +
	`"span":{"type":"object","properties":{"start":{"type":"integer"},"end":{"type":"integer"}},"description":"bytes of the chunk's source; filled in when omitted"}}}}}}`)

const answerShape = `{"answer":"...","confidence":0.8,"citations":[{"kind":"node","id":"NODE_ID"},{"kind":"row","table":"TABLE","id":"KEY"},{"kind":"chunk","id":"CHUNK_ID"}]}`

func (t *Toolbox) runAnswer(ctx context.Context, args json.RawMessage) (string, error) {
	var a AnswerArgs
	if err := decode(ToolAnswer, json.RawMessage(answerShape), args, &a); err != nil {
		return "", err
	}
	a, err := t.CheckAnswer(ctx, a)
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(a)
	return string(out), err
}

// CheckAnswer validates a final answer: a non-empty answer, a confidence in
// [0, 1], and citations that each name something the bundle holds. A
// chunk's source and span are filled in from the bundle when missing, and a
// given span must lie within the chunk. The failure is a *CallError that
// says which citation is wrong and how to cite right.
func (t *Toolbox) CheckAnswer(ctx context.Context, a AnswerArgs) (AnswerArgs, error) {
	if strings.TrimSpace(a.Answer) == "" {
		return a, &CallError{Tool: ToolAnswer, Kind: FailMalformed, Msg: "the answer is empty", Hint: "arguments look like " + answerShape}
	}
	if a.Confidence < 0 || a.Confidence > 1 {
		return a, &CallError{Tool: ToolAnswer, Kind: FailMalformed, Msg: fmt.Sprintf("confidence %g is not between 0 and 1", a.Confidence), Hint: "give a confidence from 0 (a guess) to 1 (certain)"}
	}
	a.Citations = slices.Clone(a.Citations)
	for i := range a.Citations {
		if err := t.checkCitation(ctx, &a.Citations[i]); err != nil {
			err.Msg = fmt.Sprintf("citation %d (%s %q): %s", i+1, a.Citations[i].Kind, short(a.Citations[i].ID, nameInLine), err.Msg)
			return a, err
		}
	}
	return a, nil
}

// checkCitation checks that c names something the bundle holds, and fills
// in a chunk's source and span.
func (t *Toolbox) checkCitation(ctx context.Context, c *Citation) *CallError {
	c.ID = strings.TrimSpace(c.ID)
	fail := func(kind, msg, hint string) *CallError {
		return &CallError{Tool: ToolAnswer, Kind: kind, Msg: msg, Hint: hint}
	}
	if c.ID == "" {
		return fail(FailMalformed, "no id", "every citation has a kind and an id: "+answerShape)
	}
	var q string
	switch c.Kind {
	case "node":
		q = "SELECT 1 FROM memory.main.nodes WHERE id = " + lit(c.ID)
	case "edge":
		q = "SELECT 1 FROM memory.main.edges WHERE id = " + lit(c.ID)
	case "chunk":
		return t.checkChunkCitation(ctx, c)
	case "row":
		return t.checkRowCitation(ctx, c)
	default:
		return fail(FailMalformed, fmt.Sprintf("kind %q is not node, edge, row or chunk", c.Kind), "cite with one of those kinds: "+answerShape)
	}
	rows, _, err := t.rows(ctx, q, 1)
	if err != nil {
		return fail(FailSQL, err.Error(), "")
	}
	if len(rows) == 0 {
		return fail(FailNotFound, "no "+c.Kind+" has this id", "cite ids that ls, cat, grep or sems showed")
	}
	return nil
}

func (t *Toolbox) checkChunkCitation(ctx context.Context, c *Citation) *CallError {
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT coalesce(s.uri, c.source_id), c.start, c."end" FROM memory.main.chunks c
LEFT JOIN memory.main.sources s ON s.id = c.source_id WHERE c.id = %s`, lit(c.ID)), 1)
	if err != nil {
		return &CallError{Tool: ToolAnswer, Kind: FailSQL, Msg: err.Error()}
	}
	if len(rows) == 0 {
		return &CallError{Tool: ToolAnswer, Kind: FailNotFound, Msg: "no chunk has this id", Hint: "cite chunk ids that cat, grep or sems showed"}
	}
	start, _ := strconv.Atoi(rows[0][1]) // int64 columns render as integers
	end, _ := strconv.Atoi(rows[0][2])
	if c.Span != nil && (c.Span.Start < start || c.Span.End > end || c.Span.Start > c.Span.End) {
		return &CallError{Tool: ToolAnswer, Kind: FailMalformed, Msg: fmt.Sprintf("span %d-%d is not within the chunk, which covers bytes %d-%d", c.Span.Start, c.Span.End, start, end), Hint: "omit the span to cite the whole chunk"}
	}
	if c.Span == nil {
		c.Span = &kg.Span{Start: start, End: end}
	}
	c.Source = rows[0][0]
	return nil
}

// checkRowCitation checks that a row's table is a data table and that one of
// its key columns (its rowid when it has none) holds the cited value.
func (t *Toolbox) checkRowCitation(ctx context.Context, c *Citation) *CallError {
	tables, err := t.b.Tables()
	if err != nil {
		return &CallError{Tool: ToolAnswer, Kind: FailNotFound, Msg: err.Error()}
	}
	i := slices.IndexFunc(tables, func(x kg.Table) bool { return strings.EqualFold(x.Name, strings.TrimSpace(c.Table)) })
	if i < 0 {
		names := make([]string, len(tables))
		for j, x := range tables {
			names[j] = x.Name
		}
		return &CallError{Tool: ToolAnswer, Kind: FailNotFound, Msg: fmt.Sprintf("no data table %q", c.Table), Hint: `a row citation names its table, one of ` + strings.Join(names, ", ") + `, and the row's key value: {"kind":"row","table":"TABLE","id":"KEY"}`}
	}
	tb := tables[i]
	c.Table = tb.Name
	keys := tb.PrimaryKeys
	if len(keys) == 0 {
		keys = []string{"rowid"}
	}
	conds := make([]string, len(keys))
	for j, k := range keys {
		conds[j] = fmt.Sprintf("CAST(%s AS VARCHAR) = %s", duck.QuoteIdent(k), lit(c.ID))
	}
	rows, _, err := t.rows(ctx, "SELECT 1 FROM data.main."+duck.QuoteIdent(tb.Name)+" WHERE "+strings.Join(conds, " OR "), 1)
	if err != nil {
		return &CallError{Tool: ToolAnswer, Kind: FailSQL, Msg: err.Error()}
	}
	if len(rows) == 0 {
		return &CallError{Tool: ToolAnswer, Kind: FailNotFound, Msg: fmt.Sprintf("table %s has no row whose %s is %q", tb.Name, strings.Join(keys, " or "), c.ID), Hint: "cite a row by the value of its key column " + strings.Join(keys, " or ")}
	}
	return nil
}
