package main

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"kgforge/agent"
	"kgforge/bench/internal/sqlqa"
)

// The synthetic set: databases made up from a seed, one domain each
// (synthdomains.go), written as SQLite files, with questions from
// templates whose gold SQL is in the subset convert.go turns into a typed
// query. Database i of a seed is the same whatever the number asked.

const (
	synthSetName  = "synthetic"
	synthMaxList  = 10 // most rows a listing question's result has
	synthMinQs    = 3
	synthMaxQs    = 25
	synthAttempts = 300
)

type synthCol struct {
	name string
	spec colSpec
	decl string
	vals []any
	ref  *synthTable // kindRef: the table it refers to
}

type synthTable struct {
	name, noun, plural string
	cols               []*synthCol
	key, label         *synthCol
	rows               int
}

type synthDB struct {
	name, file string
	tables     []*synthTable
	examples   []sqlqa.Example
}

// synthDomainOrder is the order the databases of a seed take the domains
// in, so that every domain comes once before any comes twice.
func synthDomainOrder(seed uint64) []int {
	return rand.New(rand.NewPCG(seed, math.MaxUint32)).Perm(len(domains))
}

// synthDatabases makes the first n databases of a seed.
func synthDatabases(seed uint64, n int) []*synthDB {
	order := synthDomainOrder(seed)
	out := make([]*synthDB, n)
	for i := range n {
		out[i] = synthDatabase(seed, i, &domains[order[i%len(order)]])
	}
	return out
}

// synthSet writes the databases of a seed as SQLite files under dir and
// returns them as a set of the pipeline.
func synthSet(seed uint64, n int, dir string) (*sqlqa.Set, error) {
	s := &sqlqa.Set{Name: synthSetName}
	files := map[string]string{}
	for _, db := range synthDatabases(seed, n) {
		path := filepath.Join(dir, db.name, db.file+".sqlite")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := writeSQLite(path, db.sqlite()); err != nil {
			return nil, fmt.Errorf("synthetic database %s: %w", db.name, err)
		}
		files[db.name] = path
		s.Examples = append(s.Examples, db.examples...)
	}
	s.DBFile = func(db string) string { return files[db] }
	return s, nil
}

func (db *synthDB) sqlite() []sqliteTable {
	var out []sqliteTable
	for _, t := range db.tables {
		st := sqliteTable{name: t.name}
		for _, c := range t.cols {
			st.columns = append(st.columns, sqliteColumn{name: c.name, decl: c.decl})
		}
		for j := range t.rows {
			row := make([]any, len(t.cols))
			for k, c := range t.cols {
				row[k] = c.vals[j]
			}
			st.rows = append(st.rows, row)
		}
		out = append(out, st)
	}
	return out
}

// Name styles.
const (
	styleSnake = iota
	styleCamel
	styleLowerCamel
	stylePrefixed // snake case, the columns prefixed with the table's abbreviation
	styles
)

func styled(words string, style int) string {
	ws := strings.Fields(strings.ReplaceAll(words, "-", " "))
	switch style {
	case styleCamel, styleLowerCamel:
		var b strings.Builder
		for i, w := range ws {
			if i > 0 || style == styleCamel {
				if w == "id" {
					w = []string{"ID", "Id"}[len(ws)%2]
				} else {
					w = strings.ToUpper(w[:1]) + w[1:]
				}
			}
			b.WriteString(w)
		}
		return b.String()
	}
	return strings.Join(ws, "_")
}

// singularOf is ingest's rule for a table name's last word (it finds the
// foreign keys of a bare "id" key by it).
func singularOf(w string) string {
	switch {
	case strings.HasSuffix(w, "ies"):
		return strings.TrimSuffix(w, "ies") + "y"
	case strings.HasSuffix(w, "ses"), strings.HasSuffix(w, "xes"):
		return strings.TrimSuffix(w, "es")
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return strings.TrimSuffix(w, "s")
	}
	return w
}

func synthDatabase(seed uint64, i int, d *domainSpec) *synthDB {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	db := &synthDB{name: fmt.Sprintf("s%d_%02d_%s", seed, i, d.key), file: d.files[r.IntN(len(d.files))]}
	style := r.IntN(styles)
	n := len(d.tables)
	if n > 1 && r.IntN(6) == 0 {
		n = 1 + r.IntN(n-1)
	}
	keyName := map[*synthTable]string{} // the name its foreign keys take
	taken := map[string]bool{}
	for ti := range n {
		ts := &d.tables[ti]
		pair := ts.names[r.IntN(len(ts.names))]
		name := pair[1]
		if r.IntN(4) == 0 {
			name = pair[0]
		}
		tname := styled(name, style)
		if style == stylePrefixed && r.IntN(2) == 0 {
			tname = "tbl_" + tname
		}
		if taken[strings.ToLower(tname)] {
			tname += "_" + strconv.Itoa(ti+1)
		}
		taken[strings.ToLower(tname)] = true
		t := &synthTable{name: tname, noun: ts.noun, plural: ts.plural}
		t.rows = ts.minRows + r.IntN(ts.maxRows-ts.minRows+1)
		keyName[t] = styled(pair[0]+" id", style)
		key := &synthCol{name: keyName[t], decl: "INTEGER"}
		last := strings.Fields(name)
		if r.IntN(3) == 0 && singularOf(last[len(last)-1]) == strings.Fields(pair[0])[len(strings.Fields(pair[0]))-1] {
			key.name = "id"
		}
		t.key = key
		t.cols = append(t.cols, key)
		db.tables = append(db.tables, t)
	}
	used := func(t *synthTable, name string) bool {
		if taken[strings.ToLower(name)] {
			return true
		}
		return slices.ContainsFunc(t.cols, func(c *synthCol) bool { return strings.EqualFold(c.name, name) })
	}
	for ti, t := range db.tables {
		ts := &d.tables[ti]
		abbrev := strings.ToLower(strings.ReplaceAll(ts.noun, " ", ""))[:3]
		for _, cs := range ts.cols {
			c := &synthCol{spec: cs}
			switch {
			case cs.kind == kindRef && cs.ref >= len(db.tables):
				continue
			case cs.kind == kindRef:
				c.ref = db.tables[cs.ref]
				c.name = keyName[c.ref]
				c.decl = "INTEGER REFERENCES " + sqliteQuote(c.ref.name) + "(" + sqliteQuote(c.ref.key.name) + ")"
			case cs.kind != kindLabel && r.IntN(5) == 0:
				continue // not every table has every column
			default:
				c.name = styled(cs.names[r.IntN(len(cs.names))], style)
				if style == stylePrefixed && r.IntN(2) == 0 {
					c.name = abbrev + "_" + c.name
				}
				c.decl = map[colKind]string{kindLabel: "TEXT", kindCat: "TEXT", kindInt: "INTEGER", kindReal: "REAL", kindDate: "DATE"}[cs.kind]
			}
			if used(t, c.name) {
				continue
			}
			t.cols = append(t.cols, c)
			if cs.kind == kindLabel && t.label == nil {
				t.label = c
			}
		}
	}
	for _, t := range db.tables {
		fillValues(r, t)
	}
	db.examples = synthQuestions(r, db)
	return db
}

// fillValues draws each column's values.
func fillValues(r *rand.Rand, t *synthTable) {
	for _, c := range t.cols {
		if c.spec.kind == kindLabel {
			pool := c.spec.pool(r, t.rows)
			t.rows = min(t.rows, len(pool))
		}
	}
	base := []int64{1, 1, 1, 100, 1000, 5001}[r.IntN(6)]
	for _, c := range t.cols {
		var cats []string
		switch c.spec.kind {
		case kindLabel:
			cats = c.spec.pool(r, t.rows)
		case kindCat:
			cats = c.spec.pool(r, 3+r.IntN(4))
		}
		c.vals = make([]any, t.rows)
		for j := range t.rows {
			switch {
			case c == t.key:
				c.vals[j] = base + int64(j)
			case c.spec.kind == kindRef:
				c.vals[j] = c.ref.key.vals[r.IntN(c.ref.rows)]
			case c.spec.kind == kindLabel:
				c.vals[j] = cats[j]
			case c.spec.kind == kindCat:
				c.vals[j] = cats[r.IntN(len(cats))]
			case c.spec.kind == kindInt:
				c.vals[j] = int64(c.spec.lo + r.IntN(c.spec.hi-c.spec.lo+1))
			case c.spec.kind == kindReal:
				p := math.Pow(10, float64(c.spec.dec))
				c.vals[j] = math.Round((float64(c.spec.lo)+r.Float64()*float64(c.spec.hi-c.spec.lo))*p) / p
			case c.spec.kind == kindDate:
				from := time.Date(c.spec.lo, 1, 1, 0, 0, 0, 0, time.UTC)
				days := int(time.Date(c.spec.hi+1, 1, 1, 0, 0, 0, 0, time.UTC).Sub(from).Hours() / 24)
				c.vals[j] = from.AddDate(0, 0, r.IntN(days)).Format(time.DateOnly)
			}
		}
	}
}

// sqlLit is a value as an SQL literal; text is it as a question says it.
func sqlLit(v any) string {
	if s, ok := v.(string); ok {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return text(v)
}

func text(v any) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	}
	return fmt.Sprint(v)
}

func compareVals(a, b any) int {
	switch a := a.(type) {
	case int64:
		return cmp.Compare(a, b.(int64))
	case float64:
		return cmp.Compare(a, b.(float64))
	case string:
		return strings.Compare(a, b.(string))
	}
	return 0
}

func (t *synthTable) of(kinds ...colKind) []*synthCol {
	var out []*synthCol
	for _, c := range t.cols {
		if c != t.key && slices.Contains(kinds, c.spec.kind) {
			out = append(out, c)
		}
	}
	return out
}

// shown is the column a listing question asks for: the label, else a
// date or a measure.
func (t *synthTable) shown(r *rand.Rand) *synthCol {
	if t.label != nil {
		return t.label
	}
	if cs := t.of(kindDate, kindInt, kindReal, kindCat); len(cs) > 0 {
		return cs[r.IntN(len(cs))]
	}
	return t.key
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// phrase fills a template: {P} the rows' plural, {N} their noun, {C} the
// column's phrase, {V} the value, {X}, {Y} more.
func phrase(r *rand.Rand, forms []string, kv ...string) string {
	return strings.NewReplacer(kv...).Replace(pick(r, forms))
}

// where counts the rows of t whose column c satisfies ok.
func where(t *synthTable, c *synthCol, ok func(v any) bool) []int {
	var out []int
	for j := range t.rows {
		if ok(c.vals[j]) {
			out = append(out, j)
		}
	}
	return out
}

var aggWords = map[string][]string{
	"sum": {"total", "combined", "overall"},
	"avg": {"average", "mean"},
	"min": {"lowest", "smallest", "minimum"},
	"max": {"highest", "largest", "maximum"},
}

// synthQuestions draws a database's questions from the templates; each
// one's gold SQL is one the converter turns into a typed query, and its
// result is small enough to answer.
func synthQuestions(r *rand.Rand, db *synthDB) []sqlqa.Example {
	want := synthMinQs + r.IntN(synthMaxQs-synthMinQs+1)
	var out []sqlqa.Example
	seen := map[string]bool{}
	for range synthAttempts {
		if len(out) == want {
			break
		}
		t := pick(r, db.tables)
		var q, sql string
		if len(t.of(kindRef)) > 0 && r.IntN(4) == 0 {
			q, sql = synthJoinQuestion(r, t) // joins are otherwise few: only the tables with a foreign key have them
		} else {
			q, sql = synthQuestion(r, t)
		}
		if sql == "" || seen[sql] {
			continue
		}
		seen[sql] = true
		out = append(out, sqlqa.Example{DB: db.name, Question: q, Query: sql})
	}
	return out
}

func synthQuestion(r *rand.Rand, t *synthTable) (string, string) {
	cats, nums, dates := t.of(kindCat), t.of(kindInt, kindReal), t.of(kindDate)
	P, N, T := t.plural, t.noun, t.name
	switch r.IntN(15) {
	case 0:
		return phrase(r, []string{"How many {P} are there?", "What is the number of {P}?", "Count the {P}.", "How many {P} does the data list?"}, "{P}", P),
			"SELECT count(*) FROM " + T
	case 1:
		if len(cats) == 0 {
			return "", ""
		}
		c := pick(r, cats)
		v := c.vals[r.IntN(t.rows)]
		return phrase(r, []string{"How many {P} have {C} {V}?", "Count the {P} whose {C} is {V}.", "What is the number of {P} with a {C} of {V}?"}, "{P}", P, "{C}", c.spec.phrase, "{V}", text(v)),
			fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = %s", T, c.name, sqlLit(v))
	case 2:
		if len(cats) == 0 {
			return "", ""
		}
		c, s := pick(r, cats), t.shown(r)
		v := c.vals[r.IntN(t.rows)]
		if n := len(where(t, c, func(x any) bool { return x == v })); n > synthMaxList || s == c {
			return "", ""
		}
		return phrase(r, []string{"List the {S} of {P} whose {C} is {V}.", "Which {P} have {C} {V}? Give their {S}.", "Show the {S} of every {N} with {C} {V}."}, "{P}", P, "{N}", N, "{C}", c.spec.phrase, "{V}", text(v), "{S}", s.spec.phrase),
			fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", s.name, T, c.name, sqlLit(v))
	case 3:
		if len(nums) == 0 {
			return "", ""
		}
		c, s := pick(r, nums), t.shown(r)
		x := c.vals[r.IntN(t.rows)]
		above := r.IntN(2) == 0
		n := len(where(t, c, func(v any) bool { d := compareVals(v, x); return above && d > 0 || !above && d < 0 }))
		if n == 0 || n > synthMaxList || s == c {
			return "", ""
		}
		op, words := "<", []string{"below", "less than", "under", "lower than"}
		if above {
			op, words = ">", []string{"above", "greater than", "over", "more than"}
		}
		return phrase(r, []string{"Which {P} have a {C} {W} {X}? Give the {S}.", "List the {S} of {P} with {C} {W} {X}.", "What are the {S} of the {P} whose {C} is {W} {X}?"}, "{P}", P, "{C}", c.spec.phrase, "{W}", pick(r, words), "{X}", text(x), "{S}", s.spec.phrase),
			fmt.Sprintf("SELECT %s FROM %s WHERE %s %s %s", s.name, T, c.name, op, sqlLit(x))
	case 4:
		cs := t.of(kindLabel, kindCat)
		if len(cs) == 0 {
			return "", ""
		}
		c := pick(r, cs)
		v := c.vals[r.IntN(t.rows)].(string)
		words := strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) })
		w := pick(r, words)
		if len(w) < 4 {
			return "", ""
		}
		k := 3 + r.IntN(2)
		at := r.IntN(len(w) - k + 1)
		sub := w[at : at+k]
		exact := where(t, c, func(x any) bool { return strings.Contains(x.(string), sub) })
		folded := where(t, c, func(x any) bool { return strings.Contains(strings.ToLower(x.(string)), strings.ToLower(sub)) })
		if len(exact) != len(folded) || len(exact) > synthMaxList {
			return "", ""
		}
		return phrase(r, []string{"Which {P} have a {C} containing \"{X}\"?", "List the {C} of {P} that contain '{X}'.", "Find every {N} whose {C} includes the text {X}."}, "{P}", P, "{N}", N, "{C}", c.spec.phrase, "{X}", sub),
			fmt.Sprintf("SELECT %s FROM %s WHERE %s LIKE '%%%s%%'", c.name, T, c.name, sub)
	case 5:
		cs := append(slices.Clone(nums), dates...)
		if len(cs) == 0 {
			return "", ""
		}
		c := pick(r, cs)
		a, b := c.vals[r.IntN(t.rows)], c.vals[r.IntN(t.rows)]
		if d := compareVals(a, b); d == 0 {
			return "", ""
		} else if d > 0 {
			a, b = b, a
		}
		in := where(t, c, func(v any) bool { return compareVals(v, a) >= 0 && compareVals(v, b) <= 0 })
		s := t.shown(r)
		if r.IntN(2) == 0 || len(in) > synthMaxList || s == c {
			return phrase(r, []string{"How many {P} have a {C} between {X} and {Y}?", "Count the {P} with {C} from {X} to {Y}.", "What is the number of {P} whose {C} lies between {X} and {Y}?"}, "{P}", P, "{C}", c.spec.phrase, "{X}", text(a), "{Y}", text(b)),
				fmt.Sprintf("SELECT count(*) FROM %s WHERE %s BETWEEN %s AND %s", T, c.name, sqlLit(a), sqlLit(b))
		}
		return phrase(r, []string{"List the {S} of {P} with a {C} between {X} and {Y}.", "Which {P} have {C} between {X} and {Y}? Give their {S}."}, "{P}", P, "{C}", c.spec.phrase, "{X}", text(a), "{Y}", text(b), "{S}", s.spec.phrase),
			fmt.Sprintf("SELECT %s FROM %s WHERE %s BETWEEN %s AND %s", s.name, T, c.name, sqlLit(a), sqlLit(b))
	case 6, 7:
		if len(nums) == 0 {
			return "", ""
		}
		c, fn := pick(r, nums), pick(r, []string{"sum", "avg", "min", "max"})
		agg := fmt.Sprintf("%s(%s)", fn, c.name)
		if len(cats) > 0 && r.IntN(2) == 0 {
			f := pick(r, cats)
			v := f.vals[r.IntN(t.rows)]
			return phrase(r, []string{"What is the {A} {C} of {P} with {F} {V}?", "Among {P} whose {F} is {V}, what is the {A} {C}?", "Give the {A} {C} for {P} that have {F} {V}."}, "{P}", P, "{C}", c.spec.phrase, "{A}", pick(r, aggWords[fn]), "{F}", f.spec.phrase, "{V}", text(v)),
				fmt.Sprintf("SELECT %s FROM %s WHERE %s = %s", agg, T, f.name, sqlLit(v))
		}
		return phrase(r, []string{"What is the {A} {C} of all {P}?", "What is the {A} {C} across {P}?", "Give the {A} {C} of the {P}."}, "{P}", P, "{C}", c.spec.phrase, "{A}", pick(r, aggWords[fn])),
			fmt.Sprintf("SELECT %s FROM %s", agg, T)
	case 8:
		if len(cats) == 0 {
			return "", ""
		}
		c := pick(r, cats)
		if len(nums) > 0 && r.IntN(2) == 0 {
			n, fn := pick(r, nums), pick(r, []string{"sum", "avg", "min", "max"})
			return phrase(r, []string{"What is the {A} {X} of {P} for each {C}?", "For each {C}, give the {A} {X} of the {P}.", "Show the {A} {X} per {C}."}, "{P}", P, "{C}", c.spec.phrase, "{A}", pick(r, aggWords[fn]), "{X}", n.spec.phrase),
				fmt.Sprintf("SELECT %s, %s(%s) FROM %s GROUP BY %s", c.name, fn, n.name, T, c.name)
		}
		return phrase(r, []string{"How many {P} are there for each {C}?", "Count the {P} per {C}.", "For every {C}, how many {P} are there?"}, "{P}", P, "{C}", c.spec.phrase),
			fmt.Sprintf("SELECT %s, count(*) FROM %s GROUP BY %s", c.name, T, c.name)
	case 9, 10:
		if len(nums) == 0 {
			return "", ""
		}
		c, s := pick(r, nums), t.shown(r)
		k := pick(r, []int{1, 1, 3, 5})
		desc := r.IntN(2) == 0
		vals := slices.Clone(c.vals[:t.rows])
		slices.SortFunc(vals, compareVals)
		if desc {
			slices.Reverse(vals)
		}
		if t.rows <= k || compareVals(vals[k-1], vals[k]) == 0 || s == c {
			return "", ""
		}
		dir, most := "", pick(r, []string{"lowest", "smallest"})
		if desc {
			dir, most = " DESC", pick(r, []string{"highest", "largest", "greatest"})
		}
		sql := fmt.Sprintf("SELECT %s FROM %s ORDER BY %s%s LIMIT %d", s.name, T, c.name, dir, k)
		if k == 1 {
			return phrase(r, []string{"Which {N} has the {M} {C}? Give its {S}.", "What is the {S} of the {N} with the {M} {C}?"}, "{N}", N, "{C}", c.spec.phrase, "{M}", most, "{S}", s.spec.phrase), sql
		}
		return phrase(r, []string{"List the {S} of the {K} {P} with the {M} {C}.", "Which {K} {P} have the {M} {C}? Give their {S}.", "Give the {S} of the {K} {P} whose {C} is {M}."}, "{P}", P, "{C}", c.spec.phrase, "{M}", most, "{S}", s.spec.phrase, "{K}", strconv.Itoa(k)), sql
	case 11:
		if len(cats) == 0 {
			return "", ""
		}
		c := pick(r, cats)
		counts := map[any]int{}
		for _, v := range c.vals {
			counts[v]++
		}
		ns := make([]int, 0, len(counts))
		for _, n := range counts {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		fewest := r.IntN(3) == 0
		if len(ns) < 2 || !fewest && ns[len(ns)-1] == ns[len(ns)-2] || fewest && ns[0] == ns[1] {
			return "", ""
		}
		if fewest {
			return phrase(r, []string{"Which {C} has the fewest {P}?", "What is the least common {C} among the {P}?"}, "{P}", P, "{C}", c.spec.phrase),
				fmt.Sprintf("SELECT %s FROM %s GROUP BY %s ORDER BY count(*) LIMIT 1", c.name, T, c.name)
		}
		return phrase(r, []string{"Which {C} has the most {P}?", "What is the most common {C} among the {P}?", "Which {C} do most {P} have?"}, "{P}", P, "{C}", c.spec.phrase),
			fmt.Sprintf("SELECT %s FROM %s GROUP BY %s ORDER BY count(*) DESC LIMIT 1", c.name, T, c.name)
	case 12:
		if len(cats) == 0 {
			return "", ""
		}
		c := pick(r, cats)
		if f := pick(r, cats); f != c && r.IntN(2) == 0 {
			v := f.vals[r.IntN(t.rows)]
			return phrase(r, []string{"How many different {C} do the {P} with {F} {V} have?", "Among {P} whose {F} is {V}, how many distinct {C} are there?"}, "{P}", P, "{C}", c.spec.phrase, "{F}", f.spec.phrase, "{V}", text(v)),
				fmt.Sprintf("SELECT count(DISTINCT %s) FROM %s WHERE %s = %s", c.name, T, f.name, sqlLit(v))
		}
		return phrase(r, []string{"How many different {C} do the {P} have?", "How many distinct {C} are there among the {P}?", "Count the distinct {C} of the {P}."}, "{P}", P, "{C}", c.spec.phrase),
			fmt.Sprintf("SELECT count(DISTINCT %s) FROM %s", c.name, T)
	default:
		return synthJoinQuestion(r, t)
	}
}

// synthJoinQuestion asks of t's rows by a column of a table one of its
// foreign keys refers to.
func synthJoinQuestion(r *rand.Rand, t *synthTable) (string, string) {
	refs := t.of(kindRef)
	if len(refs) == 0 {
		return "", ""
	}
	fk := pick(r, refs)
	p := fk.ref
	if p.label == nil {
		return "", ""
	}
	on := fmt.Sprintf("FROM %s AS T1 JOIN %s AS T2 ON T1.%s = T2.%s", t.name, p.name, fk.name, p.key.name)
	P, N, PN := t.plural, t.noun, p.noun
	nums := t.of(kindInt, kindReal)
	switch r.IntN(3) {
	case 0:
		j := r.IntN(p.rows)
		v := p.label.vals[j]
		rows := where(t, fk, func(x any) bool { return x == p.key.vals[j] })
		s := t.shown(r)
		if len(rows) == 0 || len(rows) > synthMaxList || r.IntN(3) == 0 {
			return phrase(r, []string{"How many {P} belong to the {Q} {V}?", "How many {P} are there for {Q} {V}?", "Count the {P} of the {Q} named {V}."}, "{P}", P, "{Q}", PN, "{V}", text(v)),
				fmt.Sprintf("SELECT count(*) %s WHERE T2.%s = %s", on, p.label.name, sqlLit(v))
		}
		return phrase(r, []string{"List the {S} of the {P} of {Q} {V}.", "What are the {S} of {P} whose {Q} is {V}?", "Show the {S} for every {N} of the {Q} {V}."}, "{P}", P, "{N}", N, "{Q}", PN, "{V}", text(v), "{S}", s.spec.phrase),
			fmt.Sprintf("SELECT T1.%s %s WHERE T2.%s = %s", s.name, on, p.label.name, sqlLit(v))
	case 1:
		if p.rows > agent.MaxRows {
			return "", ""
		}
		if len(nums) == 0 || r.IntN(3) == 0 {
			return phrase(r, []string{"How many {P} does each {Q} have?", "For each {Q} {L}, count the {P}.", "Count the {P} per {Q}."}, "{P}", P, "{Q}", PN, "{L}", p.label.spec.phrase),
				fmt.Sprintf("SELECT T2.%s, count(*) %s GROUP BY T2.%s", p.label.name, on, p.label.name)
		}
		n, fn := pick(r, nums), pick(r, []string{"sum", "avg", "min", "max"})
		return phrase(r, []string{"What is the {A} {X} of the {P} of each {Q}?", "For each {Q}, give the {A} {X} of its {P}.", "Show the {A} {X} of {P} per {Q} {L}."}, "{P}", P, "{Q}", PN, "{L}", p.label.spec.phrase, "{A}", pick(r, aggWords[fn]), "{X}", n.spec.phrase),
			fmt.Sprintf("SELECT T2.%s, %s(T1.%s) %s GROUP BY T2.%s", p.label.name, fn, n.name, on, p.label.name)
	default:
		if len(nums) == 0 {
			return "", ""
		}
		c := pick(r, nums)
		x := c.vals[r.IntN(t.rows)]
		n := len(where(t, c, func(v any) bool { return compareVals(v, x) > 0 }))
		if n == 0 || n > synthMaxList {
			return "", ""
		}
		return phrase(r, []string{"For the {P} with a {C} above {X}, which {Q} are they for?", "List the {Q} {L} of every {N} whose {C} is greater than {X}.", "Which {Qs} have {P} with {C} over {X}?"}, "{P}", P, "{N}", N, "{Qs}", p.plural, "{Q}", PN, "{L}", p.label.spec.phrase, "{C}", c.spec.phrase, "{X}", text(x)),
			fmt.Sprintf("SELECT T2.%s %s WHERE T1.%s > %s", p.label.name, on, c.name, sqlLit(x))
	}
}
