package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kgforge/agent"
	"kgforge/kg"
)

// selectArgs are the typed query's arguments, its fields in the order of
// the select tool's grammar (the server's grammar writes properties in
// the schema's order), so that json.Marshal writes what a constrained
// model can write.
type selectArgs struct {
	Table     string     `json:"table"`
	Columns   []string   `json:"columns,omitempty"`
	Where     []whereArg `json:"where,omitempty"`
	GroupBy   []string   `json:"group_by,omitempty"`
	Aggregate *aggArg    `json:"aggregate,omitempty"`
	OrderBy   *orderArg  `json:"order_by,omitempty"`
	Limit     int        `json:"limit,omitempty"`
}

type whereArg struct {
	Column string `json:"column"`
	Op     string `json:"op"`
	Value  string `json:"value"`
}

type aggArg struct {
	Fn     string `json:"fn"`
	Column string `json:"column"`
}

type orderArg struct {
	Column string `json:"column"`
	Desc   bool   `json:"desc,omitempty"`
}

// maxSelectItems is the select tool's bound on columns, filters and
// group columns of one call (its grammar's maxItems).
const maxSelectItems = 8

// conversion is a gold SQL as a typed query: its arguments, the tables it
// reads (the base table first), and for each column of the gold result
// the column of the typed query's result that holds it, so that the two
// results compare.
type conversion struct {
	args   selectArgs
	tables []string
	perm   []int
	keys   []string // per gold column: the typed query's column, "" for the aggregate
}

// schema is what the converter knows of a bundle: its data tables, and
// the columns the select tool's grammar offers each table as the base of
// a call (its own, then "table.column" of the tables one join away).
type schema struct {
	tables  []kg.Table
	offered map[string][]string
}

// newSchema reads the select tool's grammar of a toolbox's bundle: one
// branch per table with the columns it may name.
func newSchema(tables []kg.Table, grammar json.RawMessage) (*schema, error) {
	var g struct {
		AnyOf []struct {
			Properties struct {
				Table   struct{ Enum []string } `json:"table"`
				Columns struct {
					Items struct{ Enum []string } `json:"items"`
				} `json:"columns"`
			} `json:"properties"`
		} `json:"anyOf"`
	}
	if err := json.Unmarshal(grammar, &g); err != nil {
		return nil, fmt.Errorf("read the select tool's grammar: %w", err)
	}
	s := &schema{tables: tables, offered: map[string][]string{}}
	for _, b := range g.AnyOf {
		if len(b.Properties.Table.Enum) == 1 {
			s.offered[b.Properties.Table.Enum[0]] = b.Properties.Columns.Items.Enum
		}
	}
	return s, nil
}

func (s *schema) table(name string) (kg.Table, bool) {
	i := slices.IndexFunc(s.tables, func(t kg.Table) bool { return t.Name == name })
	if i < 0 {
		return kg.Table{}, false
	}
	return s.tables[i], true
}

// joinPair is the pair of columns the select tool joins base and other
// on: the first foreign key of base to other, else the first of other to
// base (the order the tool takes them in); ok false when none.
func (s *schema) joinPair(base, other string) (baseCol, otherCol string, ok bool) {
	b, _ := s.table(base)
	o, _ := s.table(other)
	for _, fk := range b.ForeignKeys {
		if fk.RefTable == other {
			return fk.Column, fk.RefColumn, true
		}
	}
	for _, fk := range o.ForeignKeys {
		if fk.RefTable == base {
			return fk.RefColumn, fk.Column, true
		}
	}
	return "", "", false
}

// convert turns a parsed gold SQL into a typed query over the bundle.
// bundleName maps the database's table name to the bundle's ("" for
// none).
func convert(p *parsed, s *schema, bundleName func(string) string) (conversion, error) {
	alias := map[string]string{} // alias or table (lower case) -> bundle table
	var order []string
	for _, t := range p.from {
		name := bundleName(t.name)
		if name == "" {
			return conversion{}, expressError("a table not in the bundle")
		}
		if slices.Contains(order, name) {
			return conversion{}, expressError("a table joined to itself")
		}
		order = append(order, name)
		alias[strings.ToLower(t.alias)] = name
		alias[strings.ToLower(t.name)] = name
	}
	if len(order) > 1 && p.star {
		return conversion{}, expressError("SELECT * over a join")
	}
	var last error
	for _, base := range order {
		c, err := convertFrom(p, s, alias, order, base)
		if err == nil {
			return c, nil
		}
		last = err
	}
	return conversion{}, last
}

// resolved is a column of the SQL as the typed query names it from one
// base table.
type resolver struct {
	s     *schema
	alias map[string]string
	order []string
	base  string
	used  map[string]bool // joined tables a column names
}

func (r *resolver) resolve(c colRef) (string, error) {
	table := ""
	if c.qual != "" {
		table = r.alias[strings.ToLower(c.qual)]
		if table == "" {
			return "", expressError("an unknown table alias")
		}
	} else {
		for _, t := range r.order {
			tb, _ := r.s.table(t)
			if columnOf(tb, c.name) != "" {
				if table != "" {
					return "", expressError("an unqualified column of several tables")
				}
				table = t
			}
		}
		if table == "" {
			return "", expressError("a column of no table")
		}
	}
	tb, _ := r.s.table(table)
	name := columnOf(tb, c.name)
	if name == "" {
		return "", expressError("a column of no table")
	}
	if table != r.base {
		name = table + "." + name
		r.used[table] = true
	}
	if !slices.Contains(r.s.offered[r.base], name) {
		return "", expressError("a column the select tool does not offer")
	}
	return name, nil
}

// columnOf is the bundle's spelling of a column of t (names compare
// without case, as SQLite's and DuckDB's do), or "".
func columnOf(t kg.Table, name string) string {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c.Name
		}
	}
	return ""
}

func convertFrom(p *parsed, s *schema, alias map[string]string, order []string, base string) (conversion, error) {
	if _, ok := s.offered[base]; !ok {
		return conversion{}, expressError("a table the select tool does not offer")
	}
	r := &resolver{s: s, alias: alias, order: order, base: base, used: map[string]bool{}}
	if err := checkJoins(p, r); err != nil {
		return conversion{}, err
	}
	c := conversion{args: selectArgs{Table: base, Limit: p.limit}}
	if p.limit > agent.MaxRows {
		return conversion{}, expressError("LIMIT over the tool's rows")
	}
	var keys []string // per gold column: a column name, or "" for the aggregate
	for _, it := range p.items {
		if it.fn == "" {
			name, err := r.resolve(it.col)
			if err != nil {
				return conversion{}, err
			}
			if !slices.Contains(c.args.Columns, name) {
				c.args.Columns = append(c.args.Columns, name)
			}
			keys = append(keys, name)
			continue
		}
		if c.args.Aggregate != nil {
			return conversion{}, expressError("more than one aggregate")
		}
		a, err := aggregate(it, r)
		if err != nil {
			return conversion{}, err
		}
		c.args.Aggregate = a
		keys = append(keys, "")
	}
	for _, g := range p.groupBy {
		name, err := r.resolve(g)
		if err != nil {
			return conversion{}, err
		}
		c.args.GroupBy = append(c.args.GroupBy, name)
	}
	if p.distinct {
		if c.args.Aggregate != nil || len(c.args.GroupBy) > 0 || p.star {
			return conversion{}, expressError("DISTINCT with an aggregate, a group or *")
		}
		c.args.GroupBy = slices.Clone(c.args.Columns)
	}
	if c.args.Aggregate != nil && len(c.args.Columns) > 0 && len(c.args.GroupBy) == 0 {
		return conversion{}, expressError("columns beside an aggregate without GROUP BY")
	}
	for _, w := range p.where {
		name, err := r.resolve(w.col)
		if err != nil {
			return conversion{}, err
		}
		c.args.Where = append(c.args.Where, whereArg{Column: name, Op: w.op, Value: w.value})
	}
	if o := p.orderBy; o != nil {
		arg, err := orderBy(*o, r, &c)
		if err != nil {
			return conversion{}, err
		}
		arg.Desc = p.desc
		c.args.OrderBy = arg
	}
	for _, t := range order {
		if t != base && !r.used[t] {
			return conversion{}, expressError("a table joined only to filter rows")
		}
	}
	if len(c.args.Columns) > maxSelectItems || len(c.args.Where) > maxSelectItems || len(c.args.GroupBy) > maxSelectItems {
		return conversion{}, expressError("more than 8 columns, filters or group columns")
	}
	c.tables = order
	if i := slices.Index(order, base); i > 0 {
		c.tables = append([]string{base}, slices.Delete(slices.Clone(order), i, i+1)...)
	}
	c.perm, c.keys = perm(c.args, keys, p.star), keys
	return c, nil
}

// checkJoins checks that every ON equality joins base to another table
// on the columns the select tool joins them on, one per joined table.
func checkJoins(p *parsed, r *resolver) error {
	joined := map[string]bool{}
	for _, on := range p.on {
		ta, tb := r.alias[strings.ToLower(on.a.qual)], r.alias[strings.ToLower(on.b.qual)]
		if ta == "" || tb == "" {
			return expressError("a join on unqualified columns")
		}
		ca, cb := on.a.name, on.b.name
		if tb == r.base {
			ta, tb, ca, cb = tb, ta, cb, ca
		}
		if ta != r.base {
			return expressError("a join between two tables other than the base")
		}
		bc, oc, ok := r.s.joinPair(ta, tb)
		if !ok {
			return expressError("a join along no foreign key")
		}
		if !strings.EqualFold(bc, ca) || !strings.EqualFold(oc, cb) {
			return expressError("a join on other columns than the foreign key")
		}
		if joined[tb] {
			return expressError("two equalities join one table")
		}
		joined[tb] = true
	}
	for _, t := range r.order {
		if t != r.base && !joined[t] {
			return expressError("a table not joined to the base table")
		}
	}
	return nil
}

// aggregate is an aggregate item as the typed query's: count(*) counts a
// key column of the base table (never null), or its first column.
func aggregate(it selItem, r *resolver) (*aggArg, error) {
	if it.distinct && it.fn != "count" {
		return nil, expressError("an aggregate of distinct values other than count")
	}
	if it.col.name == "*" {
		if it.fn != "count" {
			return nil, expressError("an aggregate of * other than count")
		}
		tb, _ := r.s.table(r.base)
		col := tb.Columns[0].Name
		if len(tb.PrimaryKeys) > 0 {
			col = tb.PrimaryKeys[0]
		}
		return &aggArg{Fn: "count", Column: col}, nil
	}
	name, err := r.resolve(it.col)
	if err != nil {
		return nil, err
	}
	if it.distinct {
		return &aggArg{Fn: "count_distinct", Column: name}, nil
	}
	return &aggArg{Fn: it.fn, Column: name}, nil
}

// orderBy is the ORDER BY key as the typed query's: a column, or the
// aggregate (one the select list has, or one added for the order).
func orderBy(o selItem, r *resolver, c *conversion) (*orderArg, error) {
	if o.fn == "" {
		name, err := r.resolve(o.col)
		if err != nil {
			return nil, err
		}
		return &orderArg{Column: name}, nil
	}
	a, err := aggregate(o, r)
	if err != nil {
		return nil, err
	}
	switch {
	case c.args.Aggregate == nil:
		if len(c.args.Columns) > 0 && len(c.args.GroupBy) == 0 {
			return nil, expressError("ORDER BY an aggregate without GROUP BY")
		}
		c.args.Aggregate = a
	case *c.args.Aggregate != *a && (o.col.name != "*" || c.args.Aggregate.Fn != "count"):
		return nil, expressError("ORDER BY an aggregate other than the selected one")
	}
	return &orderArg{Column: "aggregate"}, nil
}

// perm maps each column of the gold result to the column of the typed
// query's result that holds it: the tool writes the columns, then the
// group columns not among them, then the aggregate. SELECT * keeps the
// table's columns in order.
func perm(a selectArgs, keys []string, star bool) []int {
	if star {
		return nil
	}
	out := slices.Clone(a.Columns)
	for _, g := range a.GroupBy {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	p := make([]int, len(keys))
	for i, k := range keys {
		if k == "" {
			p[i] = len(out) // the aggregate comes last
			continue
		}
		p[i] = slices.Index(out, k)
	}
	return p
}

// project is a result's rows as the gold result's columns (perm); nil
// perm keeps them as they are.
func project(rows [][]string, p []int) ([][]string, bool) {
	if p == nil {
		return rows, true
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(p))
		for j, k := range p {
			if k < 0 || k >= len(r) {
				return nil, false
			}
			out[i][j] = r[k]
		}
	}
	return out, true
}

// sameRows compares two results as multisets of rows.
func sameRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(r []string) string { return strconv.Quote(strings.Join(r, "\x00")) }
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = key(a[i]), key(b[i])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}
