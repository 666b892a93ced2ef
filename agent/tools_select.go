package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// ToolSelect is the typed query: a table, its columns, filters, a group,
// an aggregate, an order and a limit as one JSON object whose every name
// is an enum of the bundle's schema, compiled by kgforge into one
// read-only SELECT for the sandbox. A small model that cannot write SQL
// can still ask a table a question, and cannot name a column that does
// not exist: the action schema's grammar keeps it to the ones that do.
const ToolSelect = "select"

// Bounds of the typed query's schema and of one call.
const (
	maxSelectTables  = 24  // data tables offered (the largest first, beyond it none)
	maxSelectColumns = 80  // columns of one branch: the table's and those of the tables it joins
	maxSelectItems   = 8   // columns, filters or group columns of one call
	maxSelectValue   = 200 // bytes of one filter value
)

// selectOps are the filter operators and what they compile to.
var selectOps = map[string]string{"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "contains": "ILIKE"}

// selectFns are the aggregates; count_distinct counts the distinct
// values of its column (COUNT(DISTINCT column)).
var selectFns = []string{"count", "count_distinct", "sum", "avg", "min", "max"}

// selectTable is one data table as the typed query offers it: its own
// columns by name, and the columns of every table one foreign key away
// (either way) as "table.column", each with the join that reaches it.
type selectTable struct {
	name    string
	columns []string          // as the call names them
	joins   map[string]string // joined table → its ON clause
	types   map[string]string // column as named → its SQL type
}

// selectSchema builds the typed query's tables from the bundle's data
// tables: nil when the bundle has none.
func selectSchema(tables []kg.Table) []selectTable {
	if len(tables) == 0 {
		return nil
	}
	tables = slices.Clone(tables)
	slices.SortStableFunc(tables, func(a, b kg.Table) int { return len(b.Columns) - len(a.Columns) })
	tables = tables[:min(len(tables), maxSelectTables)]
	slices.SortFunc(tables, func(a, b kg.Table) int { return strings.Compare(a.Name, b.Name) })
	byName := map[string]kg.Table{}
	for _, t := range tables {
		byName[t.Name] = t
	}
	out := make([]selectTable, 0, len(tables))
	for _, t := range tables {
		st := selectTable{name: t.Name, joins: map[string]string{}, types: map[string]string{}}
		for _, c := range t.Columns {
			st.columns = append(st.columns, c.Name)
			st.types[c.Name] = c.Type
		}
		join := func(other kg.Table, on string) {
			if _, done := st.joins[other.Name]; done || other.Name == t.Name {
				return
			}
			st.joins[other.Name] = on
			for _, c := range other.Columns {
				if len(st.columns) == maxSelectColumns {
					return
				}
				name := other.Name + "." + c.Name
				st.columns = append(st.columns, name)
				st.types[name] = c.Type
			}
		}
		for _, fk := range t.ForeignKeys { // this table points to another
			if other, ok := byName[fk.RefTable]; ok {
				join(other, fmt.Sprintf("%s.%s = %s.%s", duck.QuoteIdent(t.Name), duck.QuoteIdent(fk.Column), duck.QuoteIdent(other.Name), duck.QuoteIdent(fk.RefColumn)))
			}
		}
		for _, other := range tables { // another table points to this one
			for _, fk := range other.ForeignKeys {
				if fk.RefTable == t.Name {
					join(other, fmt.Sprintf("%s.%s = %s.%s", duck.QuoteIdent(other.Name), duck.QuoteIdent(fk.Column), duck.QuoteIdent(t.Name), duck.QuoteIdent(fk.RefColumn)))
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// selectParams is the typed query's parameter schema: one branch per
// table, each naming its columns as enums.
func selectParams(tables []selectTable) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"anyOf":[`)
	ops := make([]string, 0, len(selectOps))
	for op := range selectOps {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	opsJSON, _ := json.Marshal(ops)       // strings always marshal
	fnsJSON, _ := json.Marshal(selectFns) // strings always marshal
	for i, t := range tables {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(t.name)    // strings always marshal
		cols, _ := json.Marshal(t.columns) // strings always marshal
		orderBy, _ := json.Marshal(append(slices.Clone(t.columns), "aggregate"))
		fmt.Fprintf(&b, `{"type":"object","required":["table"],"properties":{`+
			`"table":{"type":"string","enum":[%s]},`+
			`"columns":{"type":"array","maxItems":%d,"items":{"type":"string","enum":%s}},`+
			`"where":{"type":"array","maxItems":%d,"items":{"type":"object","required":["column","op","value"],"properties":{"column":{"type":"string","enum":%s},"op":{"type":"string","enum":%s},"value":{"type":"string","maxLength":%d}}}},`+
			`"group_by":{"type":"array","maxItems":%d,"items":{"type":"string","enum":%s}},`+
			`"aggregate":{"type":"object","required":["fn","column"],"properties":{"fn":{"type":"string","enum":%s},"column":{"type":"string","enum":%s}}},`+
			`"order_by":{"type":"object","required":["column"],"properties":{"column":{"type":"string","enum":%s},"desc":{"type":"boolean"}}},`+
			`"limit":{"type":"integer","minimum":1,"maximum":%d}}}`,
			name, maxSelectItems, cols, maxSelectItems, cols, opsJSON, maxSelectValue, maxSelectItems, cols, fnsJSON, cols, orderBy, MaxRows)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// selectPlainParams is the typed query's plain object schema, for tool
// calling and MCP clients: the table an enum, columns named in words.
func selectPlainParams(tables []selectTable) json.RawMessage {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name
	}
	tbls, _ := json.Marshal(names)        // strings always marshal
	fnsJSON, _ := json.Marshal(selectFns) // strings always marshal
	const column = `{"type":"string","description":"a column of the table, or table.column of a table it joins"}`
	return json.RawMessage(fmt.Sprintf(`{"type":"object","required":["table"],"properties":{`+
		`"table":{"type":"string","enum":%s},`+
		`"columns":{"type":"array","items":%s},`+
		`"where":{"type":"array","items":{"type":"object","required":["column","op","value"],"properties":{"column":%s,"op":{"type":"string","enum":["=","!=","<","<=",">",">=","contains"]},"value":{"type":"string"}}}},`+
		`"group_by":{"type":"array","items":%s},`+
		`"aggregate":{"type":"object","required":["fn","column"],"properties":{"fn":{"type":"string","enum":%s},"column":%s}},`+
		`"order_by":{"type":"object","required":["column"],"properties":{"column":{"type":"string","description":"a column, or aggregate"},"desc":{"type":"boolean"}}},`+
		`"limit":{"type":"integer","minimum":1,"maximum":%d}}}`, tbls, column, column, column, fnsJSON, column, MaxRows))
}

// selectCall is one typed query as the model writes it.
type selectCall struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
	Where   []struct {
		Column string `json:"column"`
		Op     string `json:"op"`
		Value  string `json:"value"`
	} `json:"where"`
	GroupBy   []string `json:"group_by"`
	Aggregate *struct {
		Fn     string `json:"fn"`
		Column string `json:"column"`
	} `json:"aggregate"`
	// Having compares the aggregate of each group with a number ("at
	// least 3 makers"). The model's grammar does not offer it (the action
	// model never learnt it); kgforge's repairs write it (havingCount).
	Having *struct {
		Op    string `json:"op"`
		Value string `json:"value"`
	} `json:"having"`
	OrderBy *struct {
		Column string `json:"column"`
		Desc   bool   `json:"desc"`
	} `json:"order_by"`
	Limit int `json:"limit"`
}

// compileSelect turns a typed query into one SELECT over the tables it
// names. Every name must be one the schema offers for the table (a model
// without the grammar may write any); values are literals, numbers only
// where the column is numeric and the value reads as one.
func compileSelect(tables []selectTable, c selectCall) (string, error) {
	i := slices.IndexFunc(tables, func(t selectTable) bool { return t.name == c.Table })
	if i < 0 {
		names := make([]string, len(tables))
		for j, t := range tables {
			names[j] = t.name
		}
		return "", &CallError{Tool: ToolSelect, Kind: FailNotFound, Msg: fmt.Sprintf("no data table is %q", c.Table), Hint: "take a table of: " + short(strings.Join(names, ", "), maxListing)}
	}
	t := tables[i]
	used := map[string]bool{} // joined tables a column names
	col := func(name string) (string, error) {
		if !slices.Contains(t.columns, name) {
			return "", &CallError{
				Tool: ToolSelect, Kind: FailNotFound, Msg: fmt.Sprintf("table %s has no column %q, and no table it joins has", t.name, name),
				Hint: "take a column of: " + short(strings.Join(t.columns, ", "), maxListing),
			}
		}
		if tbl, c, ok := strings.Cut(name, "."); ok && t.joins[tbl] != "" {
			used[tbl] = true
			return duck.QuoteIdent(tbl) + "." + duck.QuoteIdent(c), nil
		}
		return duck.QuoteIdent(t.name) + "." + duck.QuoteIdent(name), nil
	}
	if len(c.Columns) > maxSelectItems || len(c.Where) > maxSelectItems || len(c.GroupBy) > maxSelectItems {
		return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: fmt.Sprintf("at most %d columns, filters and group columns each", maxSelectItems)}
	}
	var sel, where, group []string
	for _, name := range c.Columns {
		q, err := col(name)
		if err != nil {
			return "", err
		}
		sel = append(sel, q+" AS "+duck.QuoteIdent(name))
	}
	for _, name := range c.GroupBy {
		q, err := col(name)
		if err != nil {
			return "", err
		}
		group = append(group, q)
		if !slices.Contains(c.Columns, name) {
			sel = append(sel, q+" AS "+duck.QuoteIdent(name))
		}
	}
	agg, aggCall := "", ""
	if a := c.Aggregate; a != nil {
		if !slices.Contains(selectFns, a.Fn) {
			return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: fmt.Sprintf("no aggregate %q", a.Fn), Hint: "fn is one of " + strings.Join(selectFns, ", ")}
		}
		q, err := col(a.Column)
		if err != nil {
			return "", err
		}
		agg = a.Fn + "_" + strings.ReplaceAll(a.Column, ".", "_")
		call := a.Fn + "(" + q + ")"
		if a.Fn == "count_distinct" {
			call = "count(DISTINCT " + q + ")"
		}
		sel = append(sel, call+" AS "+duck.QuoteIdent(agg))
		aggCall = call
	}
	having := ""
	if h := c.Having; h != nil {
		op, ok := selectOps[h.Op]
		switch {
		case aggCall == "" || len(group) == 0:
			return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: "having compares the aggregate of each group, and the call has no aggregate or group_by"}
		case !ok || op == "ILIKE":
			return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: fmt.Sprintf("no having operator %q", h.Op), Hint: "op is one of =, !=, <, <=, >, >="}
		case !plainNumber(strings.TrimSpace(h.Value)):
			return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: fmt.Sprintf("having's value %q is not a number", short(h.Value, 40))}
		}
		having = fmt.Sprintf(" HAVING %s %s %s", aggCall, op, strings.TrimSpace(h.Value))
	}
	if len(sel) == 0 {
		sel = []string{duck.QuoteIdent(t.name) + ".*"}
	}
	// Equality filters on one column are alternatives (either value), as
	// a conjunction of two different values could hold for no row: they
	// are written as one IN list where the first of them stands. Filters on
	// different columns all hold.
	alts, written := map[string][]string{}, map[string]bool{}
	for _, w := range c.Where {
		if w.Op == "=" {
			alts[w.Column] = append(alts[w.Column], w.Value)
		}
	}
	for _, w := range c.Where {
		q, err := col(w.Column)
		if err != nil {
			return "", err
		}
		if vs := alts[w.Column]; w.Op == "=" && len(vs) > 1 {
			if written[w.Column] {
				continue // written with the first
			}
			written[w.Column] = true
			var in []string
			for _, v := range vs {
				if len(v) > maxSelectValue {
					return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: fmt.Sprintf("a filter value is at most %d bytes", maxSelectValue)}
				}
				if x := selectValue(t.types[w.Column], v); !slices.Contains(in, x) {
					in = append(in, x)
				}
			}
			where = append(where, fmt.Sprintf("%s IN (%s)", q, strings.Join(in, ", ")))
			continue
		}
		op, ok := selectOps[w.Op]
		if !ok {
			return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: fmt.Sprintf("no filter operator %q", w.Op), Hint: "op is one of =, !=, <, <=, >, >=, contains"}
		}
		if len(w.Value) > maxSelectValue {
			return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: fmt.Sprintf("a filter value is at most %d bytes", maxSelectValue)}
		}
		if op == "ILIKE" {
			pattern := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(w.Value)
			where = append(where, fmt.Sprintf("CAST(%s AS VARCHAR) ILIKE %s ESCAPE '\\'", q, lit("%"+pattern+"%")))
			continue
		}
		where = append(where, fmt.Sprintf("%s %s %s", q, op, selectValue(t.types[w.Column], w.Value)))
	}
	order := "" // named before the joins are written: its column may be the only one of a joined table
	if o := c.OrderBy; o != nil {
		order = duck.QuoteIdent(agg)
		if o.Column != "aggregate" {
			q, err := col(o.Column)
			if err != nil {
				return "", err
			}
			order = q
		} else if agg == "" {
			return "", &CallError{Tool: ToolSelect, Kind: FailMalformed, Msg: "order_by names the aggregate, and the call has none", Hint: "give aggregate, or order by a column"}
		}
		if o.Desc {
			order += " DESC"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT %s FROM %s", strings.Join(sel, ", "), duck.QuoteIdent(t.name))
	joined := make([]string, 0, len(used))
	for tbl := range used {
		joined = append(joined, tbl)
	}
	slices.Sort(joined)
	for _, tbl := range joined {
		fmt.Fprintf(&b, " JOIN %s ON %s", duck.QuoteIdent(tbl), t.joins[tbl])
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	if len(group) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(group, ", "))
	}
	b.WriteString(having)
	if order != "" {
		b.WriteString(" ORDER BY " + order)
	}
	limit := c.Limit
	if limit <= 0 || limit > MaxRows {
		limit = MaxRows
	}
	fmt.Fprintf(&b, " LIMIT %d", limit)
	return b.String(), nil
}

// plainNumber reports whether v is a decimal number as SQL writes one:
// digits, at most one point, an optional minus; at most 20 characters
// (no exponent, no NaN or Inf, nothing that reads as a name).
func plainNumber(v string) bool {
	digits, point := 0, false
	for i, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '.' && !point:
			point = true
		case r == '-' && i == 0:
		default:
			return false
		}
	}
	return digits > 0 && len(v) <= 20
}

// selectValue writes a filter value as a literal: a number for a numeric
// column when it reads as one, else a string (DuckDB casts it to the
// column's type, and says so when it cannot).
func selectValue(typ, v string) string {
	t := strings.ToUpper(typ)
	numeric := strings.HasPrefix(t, "DECIMAL") || slices.Contains([]string{
		"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "FLOAT", "DOUBLE", "REAL",
	}, t)
	if n := strings.TrimSpace(v); numeric {
		if _, err := strconv.ParseFloat(n, 64); err == nil {
			return n
		}
	}
	return lit(v)
}

// selectTool is the typed query over the bundle's data tables; ok is
// false when the bundle has none.
func (t *Toolbox) selectTool() (Tool, bool) {
	data, err := t.b.Tables()
	if err != nil || len(data) == 0 {
		return Tool{}, false
	}
	tables := selectSchema(data)
	return Tool{
		Name: ToolSelect,
		Description: fmt.Sprintf("Ask a data table without writing SQL: table, columns, where (column, op, value), group_by, aggregate (fn, column), order_by (column or \"aggregate\", desc), limit; "+
			"columns of a table one join away are named table.column and joined for you; at most %d rows.", MaxRows),
		Params:  selectPlainParams(tables),
		Grammar: selectParams(tables),
		Run: func(ctx context.Context, args json.RawMessage) (string, error) {
			var c selectCall
			dec := json.NewDecoder(strings.NewReader(string(args)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				return "", &CallError{
					Tool: ToolSelect, Kind: FailMalformed, Msg: "arguments do not fit: " + err.Error(),
					Hint: `for example {"table": "orders", "columns": ["customer"], "where": [{"column": "status", "op": "=", "value": "delayed"}]}`,
				}
			}
			q, err := compileSelect(tables, c)
			if err != nil {
				return "", err
			}
			res, err := t.query(ctx, q, MaxRows)
			if ce := (*CallError)(nil); errors.As(err, &ce) {
				ce.Tool = ToolSelect
				ce.Msg += " (the typed query compiled to: " + short(q, maxListing) + ")"
			}
			return res, err
		},
	}, true
}
