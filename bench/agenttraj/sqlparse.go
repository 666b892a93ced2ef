package main

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// The subset of Spider's SQL that the typed query (agent's select tool)
// can say, parsed into a tree: one SELECT over one table or tables joined
// by equalities, its items plain columns or one aggregate, a WHERE of
// comparisons joined by AND, GROUP BY, one ORDER BY key and LIMIT. What
// falls outside is refused with the reason (expressError), never
// guessed at.

// expressError is the reason a gold SQL has no typed query: it is not
// expressible in it.
type expressError string

func (e expressError) Error() string { return "not expressible: " + string(e) }

// colRef is a column as the SQL names it: an alias or table (may be
// empty) and a column.
type colRef struct{ qual, name string }

// selItem is one item of the select list: a column, or an aggregate of a
// column (col.name "*" for count(*)).
type selItem struct {
	fn       string // "" for a plain column; count, sum, avg, min, max (count with distinct: count_distinct)
	distinct bool   // count(DISTINCT x)
	col      colRef
}

// cond is one condition of the WHERE: col op value.
type cond struct {
	col   colRef
	op    string // =, !=, <, <=, >, >=, contains
	value string
}

// tableRef is a table of the FROM with its alias.
type tableRef struct{ name, alias string }

// joinOn is one equality of a JOIN's ON.
type joinOn struct{ a, b colRef }

// parsed is one SELECT of the subset.
type parsed struct {
	distinct bool
	star     bool // SELECT *
	items    []selItem
	from     []tableRef
	on       []joinOn
	where    []cond
	groupBy  []colRef
	orderBy  *selItem
	desc     bool
	limit    int
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokNum
	tokStr
	tokSym
)

type token struct {
	kind tokKind
	s    string
}

// lex splits SQL into tokens; both quote characters make strings (Spider
// writes "x" for a string as SQLite allows).
func lex(q string) ([]token, error) {
	var out []token
	rs := []rune(q)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'' || c == '"':
			j := i + 1
			var b strings.Builder
			for ; j < len(rs); j++ {
				if rs[j] == c {
					if j+1 < len(rs) && rs[j+1] == c { // a doubled quote
						b.WriteRune(c)
						j++
						continue
					}
					break
				}
				b.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated string at %d", i)
			}
			out = append(out, token{tokStr, b.String()})
			i = j + 1
		case c == '`':
			j := i + 1
			for j < len(rs) && rs[j] != '`' {
				j++
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated identifier at %d", i)
			}
			out = append(out, token{tokIdent, string(rs[i+1 : j])})
			i = j + 1
		case unicode.IsDigit(c) || c == '.' && i+1 < len(rs) && unicode.IsDigit(rs[i+1]):
			j := i
			for j < len(rs) && (unicode.IsDigit(rs[j]) || rs[j] == '.') {
				j++
			}
			out = append(out, token{tokNum, string(rs[i:j])})
			i = j
		case unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_') {
				j++
			}
			out = append(out, token{tokIdent, string(rs[i:j])})
			i = j
		default:
			for _, op := range []string{"!=", "<>", "<=", ">=", "=", "<", ">", "(", ")", ",", ".", "*", ";", "-", "+", "/", "%", "|"} {
				if strings.HasPrefix(string(rs[i:min(len(rs), i+2)]), op) {
					out = append(out, token{tokSym, op})
					i += len([]rune(op))
					goto next
				}
			}
			return nil, fmt.Errorf("unexpected %q at %d", c, i)
		next:
		}
	}
	return append(out, token{kind: tokEOF}), nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// kw reports whether the next token is the keyword k, and takes it.
func (p *parser) kw(k string) bool {
	if t := p.peek(); t.kind == tokIdent && strings.EqualFold(t.s, k) {
		p.i++
		return true
	}
	return false
}

func (p *parser) sym(s string) bool {
	if t := p.peek(); t.kind == tokSym && t.s == s {
		p.i++
		return true
	}
	return false
}

// keywords end an alias or a list; none is a table or column name in the
// sets' SQL.
var keywords = map[string]bool{
	"select": true, "from": true, "where": true, "group": true, "by": true, "order": true, "limit": true, "join": true, "on": true,
	"and": true, "or": true, "not": true, "as": true, "having": true, "asc": true, "desc": true, "intersect": true, "union": true,
	"except": true, "in": true, "like": true, "between": true, "distinct": true, "inner": true, "left": true, "outer": true, "is": true,
}

var aggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true}

// parseSQL parses one gold SQL of the subset, or says what puts it
// outside (a expressError).
func parseSQL(q string) (*parsed, error) {
	toks, err := lex(q)
	if err != nil {
		return nil, expressError("unreadable SQL")
	}
	for i, t := range toks {
		if t.kind != tokIdent {
			continue
		}
		switch strings.ToLower(t.s) {
		case "intersect", "union", "except":
			return nil, expressError("a set operation (INTERSECT, UNION, EXCEPT)")
		case "select":
			if i > 0 {
				return nil, expressError("nested query")
			}
		case "having":
			return nil, expressError("HAVING")
		case "or":
			return nil, expressError("OR")
		case "not", "in":
			return nil, expressError("NOT or IN")
		case "left", "outer":
			return nil, expressError("outer join")
		}
	}
	p := &parser{toks: toks}
	out := &parsed{}
	if !p.kw("select") {
		return nil, expressError("not a SELECT")
	}
	out.distinct = p.kw("distinct")
	if err := p.items(out); err != nil {
		return nil, err
	}
	if !p.kw("from") {
		return nil, expressError("no FROM")
	}
	if err := p.from(out); err != nil {
		return nil, err
	}
	if p.kw("where") {
		if err := p.where(out); err != nil {
			return nil, err
		}
	}
	if p.kw("group") {
		if !p.kw("by") {
			return nil, expressError("GROUP without BY")
		}
		for {
			c, err := p.col()
			if err != nil {
				return nil, err
			}
			out.groupBy = append(out.groupBy, c)
			if !p.sym(",") {
				break
			}
		}
	}
	if p.kw("order") {
		if !p.kw("by") {
			return nil, expressError("ORDER without BY")
		}
		it, err := p.item()
		if err != nil {
			return nil, err
		}
		out.orderBy = &it
		if p.kw("desc") {
			out.desc = true
		} else {
			p.kw("asc")
		}
		if p.sym(",") {
			return nil, expressError("ORDER BY more than one key")
		}
	}
	if p.kw("limit") {
		t := p.next()
		n := 0
		if _, err := fmt.Sscanf(t.s, "%d", &n); t.kind != tokNum || err != nil || n < 1 {
			return nil, expressError("LIMIT that is not a positive number")
		}
		out.limit = n
	}
	p.sym(";")
	if t := p.peek(); t.kind != tokEOF {
		return nil, expressError("more after the query")
	}
	return out, nil
}

func (p *parser) items(out *parsed) error {
	if p.sym("*") {
		out.star = true
		return nil
	}
	for {
		it, err := p.item()
		if err != nil {
			return err
		}
		out.items = append(out.items, it)
		if p.kw("as") {
			p.next() // an output name: the typed query names columns itself
		}
		if !p.sym(",") {
			return nil
		}
	}
}

// item is a column or an aggregate of one.
func (p *parser) item() (selItem, error) {
	t := p.peek()
	if t.kind == tokIdent && aggregates[strings.ToLower(t.s)] && p.toks[p.i+1].s == "(" {
		p.i += 2
		it := selItem{fn: strings.ToLower(t.s)}
		it.distinct = p.kw("distinct")
		if p.sym("*") {
			it.col = colRef{name: "*"}
		} else {
			c, err := p.col()
			if err != nil {
				return it, err
			}
			it.col = c
		}
		if !p.sym(")") {
			return it, expressError("an expression inside an aggregate")
		}
		return it, p.noArithmetic()
	}
	c, err := p.col()
	if err != nil {
		return selItem{}, err
	}
	return selItem{col: c}, p.noArithmetic()
}

func (p *parser) noArithmetic() error {
	if t := p.peek(); t.kind == tokSym && slices.Contains([]string{"+", "-", "*", "/", "%", "|"}, t.s) {
		return expressError("arithmetic")
	}
	return nil
}

// col is [qualifier.]name.
func (p *parser) col() (colRef, error) {
	t := p.next()
	if t.kind != tokIdent || keywords[strings.ToLower(t.s)] {
		return colRef{}, expressError("an expression where a column should be")
	}
	if p.sym(".") {
		n := p.next()
		if n.kind != tokIdent {
			return colRef{}, expressError("an expression where a column should be")
		}
		return colRef{qual: t.s, name: n.s}, nil
	}
	return colRef{name: t.s}, nil
}

func (p *parser) table() (tableRef, error) {
	t := p.next()
	if t.kind != tokIdent || keywords[strings.ToLower(t.s)] {
		return tableRef{}, expressError("an expression where a table should be")
	}
	r := tableRef{name: t.s, alias: t.s}
	p.kw("as")
	if a := p.peek(); a.kind == tokIdent && !keywords[strings.ToLower(a.s)] {
		r.alias = a.s
		p.i++
	}
	return r, nil
}

func (p *parser) from(out *parsed) error {
	t, err := p.table()
	if err != nil {
		return err
	}
	out.from = append(out.from, t)
	for {
		if p.sym(",") {
			return expressError("a cross join (FROM a, b)")
		}
		p.kw("inner")
		if !p.kw("join") {
			return nil
		}
		t, err := p.table()
		if err != nil {
			return err
		}
		out.from = append(out.from, t)
		if !p.kw("on") {
			return expressError("JOIN without ON")
		}
		for {
			a, err := p.col()
			if err != nil {
				return err
			}
			if !p.sym("=") {
				return expressError("a join on other than an equality")
			}
			b, err := p.col()
			if err != nil {
				return err
			}
			out.on = append(out.on, joinOn{a, b})
			if !p.kw("and") {
				break
			}
		}
	}
}

var compareOps = map[string]string{"=": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

func (p *parser) where(out *parsed) error {
	for {
		c, err := p.col()
		if err != nil {
			return err
		}
		switch t := p.next(); {
		case t.kind == tokSym && compareOps[t.s] != "":
			v, err := p.value()
			if err != nil {
				return err
			}
			out.where = append(out.where, cond{c, compareOps[t.s], v})
		case t.kind == tokIdent && strings.EqualFold(t.s, "like"):
			s := p.next()
			inner, ok := strings.CutPrefix(s.s, "%")
			if ok {
				inner, ok = strings.CutSuffix(inner, "%")
			}
			if s.kind != tokStr || !ok || inner == "" || strings.ContainsAny(inner, "%_") {
				return expressError("LIKE other than '%text%'")
			}
			out.where = append(out.where, cond{c, "contains", inner})
		case t.kind == tokIdent && strings.EqualFold(t.s, "between"):
			lo, err := p.value()
			if err != nil {
				return err
			}
			if !p.kw("and") {
				return expressError("BETWEEN without AND")
			}
			hi, err := p.value()
			if err != nil {
				return err
			}
			out.where = append(out.where, cond{c, ">=", lo}, cond{c, "<=", hi})
		default:
			return expressError("a condition other than a comparison, LIKE or BETWEEN")
		}
		if !p.kw("and") {
			return nil
		}
	}
}

// value is a literal: a number (signed) or a string.
func (p *parser) value() (string, error) {
	neg := p.sym("-")
	t := p.next()
	switch {
	case t.kind == tokNum && neg:
		return "-" + t.s, nil
	case t.kind == tokNum, t.kind == tokStr && !neg:
		return t.s, nil
	case t.kind == tokIdent:
		return "", expressError("a comparison of two columns")
	}
	return "", expressError("an expression where a value should be")
}
