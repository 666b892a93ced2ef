package link

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kgforge/internal/duck"
	"kgforge/kg"
)

// The profile rules that decide whether a table describes things (see
// docs/linking.md).
const (
	// MinNameDistinct is the least share of distinct values among the
	// non-null values of a name-like column.
	MinNameDistinct = 0.9
	// MaxNameNulls is the largest share of nulls a name-like column may have.
	MaxNameNulls = 0.1
	// MaxNameLength is the longest mean sample length (runes) of a
	// name-like column: longer text is a description, not a name.
	MaxNameLength = 80
	// MinFKScore is the least inclusion ratio of a foreign key that becomes
	// edges between row entities.
	MinFKScore = 0.9
	// MaxPropLength is the longest value (runes) copied from a row onto its
	// entity as a property; longer text stays in the table.
	MaxPropLength = 200
)

// The rules that decide a row entity, in the link log and the merge log.
const (
	RuleRowProfile  = "row_profile"  // the profile chose the table
	RuleRowPipeline = "row_pipeline" // the pipeline file chose it
)

// Decision is what the link step made of one table: row entities or a
// table, and why.
type Decision struct {
	Table  string `json:"table"`
	Entity bool   `json:"entity"`
	Type   string `json:"type,omitempty"` // the entity type
	Key    string `json:"key,omitempty"`  // the key column
	Name   string `json:"name,omitempty"` // the name column
	Rows   int    `json:"rows"`           // row entities made
	Edges  int    `json:"edges"`          // foreign-key edges from this table's rows
	By     string `json:"by"`             // "profile" or "pipeline"
	Reason string `json:"reason"`
}

// RowSet is what the rows of the entity tables gave.
type RowSet struct {
	Nodes     []kg.Node  // one per row, sorted by id
	Edges     []kg.Edge  // ROW_OF and foreign-key edges, sorted by id
	Links     []kg.Link  // a ROW_OF link per row, sorted by id
	Decisions []Decision // one per table, sorted by table
}

// RowID returns the id of the entity of row key of table.
func RowID(table, key string) string { return kg.ID("row", table, key) }

// Rows decides from the profile and the pipeline's say which tables give
// row entities, reads their rows from db (the build's DuckDB, which holds
// every table of tables) and returns the entities, their ROW_OF edges and
// links, and the foreign-key edges between them.
func Rows(ctx context.Context, db *sql.DB, tables []kg.Table, cfg Config) (RowSet, error) {
	var out RowSet
	byName := map[string]*tableRows{}
	sorted := slices.Clone(tables)
	slices.SortFunc(sorted, func(a, b kg.Table) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range sorted {
		d := Decide(t, cfg)
		out.Decisions = append(out.Decisions, d)
		if !d.Entity {
			continue
		}
		tr, err := readRows(ctx, db, t, d)
		if err != nil {
			return out, err
		}
		byName[t.Name] = tr
	}
	for i := range out.Decisions {
		d := &out.Decisions[i]
		tr := byName[d.Table]
		if tr == nil {
			continue
		}
		d.Rows = len(tr.rows)
		nodes, edges, links := tr.entities()
		out.Nodes = append(out.Nodes, nodes...)
		out.Edges = append(out.Edges, edges...)
		out.Links = append(out.Links, links...)
		fks := tr.foreignEdges(byName)
		d.Edges = len(fks)
		out.Edges = append(out.Edges, fks...)
	}
	slices.SortFunc(out.Nodes, func(a, b kg.Node) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(out.Edges, func(a, b kg.Edge) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(out.Links, func(a, b kg.Link) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Decide says whether table t gives row entities, from the pipeline's say
// (cfg.Tables) and else from its profile, and why.
func Decide(t kg.Table, cfg Config) Decision {
	tc := cfg.Tables[t.Name]
	d := Decision{Table: t.Name, By: "profile"}
	if tc != (TableConfig{}) {
		d.By = "pipeline"
	}
	stay := func(format string, a ...any) Decision {
		d.Reason = fmt.Sprintf(format, a...)
		return d
	}
	if tc.Entity != nil && !*tc.Entity {
		return stay("the pipeline says entity: false")
	}
	limit := cmp.Or(cfg.MaxRowEntities, DefaultMaxRowEntities)
	switch {
	case t.Rows == 0:
		return stay("no rows")
	case t.Rows > int64(limit):
		return stay("%d rows, more than max_row_entities (%d)", t.Rows, limit)
	}
	name, why := nameColumn(t, tc)
	if name == "" {
		return stay("%s", why)
	}
	key, why := keyColumn(t, tc, name)
	if key == "" {
		return stay("%s", why)
	}
	if tc.Entity == nil && tc.Name == "" && !nameHinted(name) {
		if ev := eventLike(t); ev != "" {
			return stay("looks like events (%s) and no column is called a name; %s is the best text column", ev, name)
		}
	}
	d.Entity, d.Key, d.Name = true, key, name
	d.Type = cmp.Or(tc.Type, TypeName(t.Name))
	d.Reason = fmt.Sprintf("key %s, name-like column %s", key, name)
	if d.By == "pipeline" {
		d.Reason += " (set in the pipeline)"
	}
	return d
}

// column returns the profile of column name of t.
func column(t kg.Table, name string) (kg.Column, bool) {
	i := slices.IndexFunc(t.Columns, func(c kg.Column) bool { return c.Name == name })
	if i < 0 {
		return kg.Column{}, false
	}
	return t.Columns[i], true
}

// nameColumn picks the name-like column: the pipeline's, else the
// name-like text column whose name says it is a name, else the one with
// the highest distinct share, the first in column order on a tie.
func nameColumn(t kg.Table, tc TableConfig) (string, string) {
	if tc.Name != "" {
		if _, ok := column(t, tc.Name); !ok {
			return "", fmt.Sprintf("the pipeline names name column %q, which the table does not have", tc.Name)
		}
		return tc.Name, ""
	}
	best, bestScore := "", -1.0
	var why []string
	for _, c := range t.Columns {
		if reason := nameLike(c, t.Rows); reason != "" {
			if isText(c.Type) {
				why = append(why, c.Name+": "+reason)
			}
			continue
		}
		score := distinctShare(c, t.Rows)
		if nameHinted(c.Name) {
			score++
		}
		if score > bestScore {
			best, bestScore = c.Name, score
		}
	}
	switch {
	case best != "":
		return best, ""
	case len(why) == 0:
		return "", "no text column"
	case len(why) > 4:
		why = append(why[:4], "…")
	}
	return "", "no name-like column (" + strings.Join(why, "; ") + ")"
}

// nameLike returns why column c of a table of rows rows is not name-like,
// or "" when it is: text, mostly distinct, mostly non-null, short, and
// neither codes nor dates.
func nameLike(c kg.Column, rows int64) string {
	switch {
	case !isText(c.Type):
		return "not text (" + c.Type + ")"
	case rows > 0 && float64(c.Nulls)/float64(rows) > MaxNameNulls:
		return fmt.Sprintf("%d of %d rows null", c.Nulls, rows)
	case distinctShare(c, rows) < MinNameDistinct:
		return fmt.Sprintf("%d distinct values in %d rows", c.Distinct, rows)
	case len(c.Samples) == 0:
		return "no values"
	case meanLength(c.Samples) > MaxNameLength:
		return "long text"
	case all(c.Samples, codeLike):
		return "values look like codes or dates"
	}
	return ""
}

func isText(typ string) bool {
	t := strings.ToUpper(typ)
	return t == "VARCHAR" || t == "TEXT" || t == "STRING" || strings.HasPrefix(t, "VARCHAR(")
}

func distinctShare(c kg.Column, rows int64) float64 {
	if n := rows - c.Nulls; n > 0 {
		return float64(c.Distinct) / float64(n)
	}
	return 0
}

func meanLength(vs []string) float64 {
	n := 0
	for _, v := range vs {
		n += utf8.RuneCountInString(v)
	}
	return float64(n) / float64(len(vs))
}

func all(vs []string, f func(string) bool) bool {
	for _, v := range vs {
		if !f(v) {
			return false
		}
	}
	return true
}

// codeLike reports whether v reads as a code, a number or a date rather
// than a name: one word that holds a digit (S001, PO-25001, 2025-03-04,
// 2025-W14) or no letter at all.
func codeLike(v string) bool {
	hasDigit, hasLetter := false, false
	for _, r := range v {
		if unicode.IsSpace(r) {
			return !strings.ContainsFunc(v, unicode.IsLetter)
		}
		hasDigit = hasDigit || unicode.IsDigit(r)
		hasLetter = hasLetter || unicode.IsLetter(r)
	}
	return hasDigit || !hasLetter
}

// nameHinted reports whether a column's name says it holds names.
func nameHinted(col string) bool {
	c := strings.ToLower(col)
	return c == "title" || c == "label" || strings.HasSuffix(c, "name") || strings.HasSuffix(c, "_title")
}

// keyLike reports whether a column's name says it holds keys.
func keyLike(col string) bool {
	c := strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '.' {
			return '_'
		}
		return unicode.ToLower(r)
	}, col)
	for _, s := range []string{"id", "key", "code", "no", "number", "sku", "uuid"} {
		if c == s || strings.HasSuffix(c, "_"+s) || (len(s) > 2 && strings.HasSuffix(c, s)) || (s == "id" && strings.HasSuffix(col, "Id")) {
			return true
		}
	}
	return false
}

// keyColumn picks the key column: the pipeline's (a candidate key), else a
// candidate key whose name says it is a key, else the name column when it
// is a candidate key itself, else any other candidate key of a text or
// integer type.
func keyColumn(t kg.Table, tc TableConfig, name string) (string, string) {
	if tc.Key != "" {
		if _, ok := column(t, tc.Key); !ok {
			return "", fmt.Sprintf("the pipeline names key column %q, which the table does not have", tc.Key)
		}
		if !slices.Contains(t.PrimaryKeys, tc.Key) {
			return "", fmt.Sprintf("the pipeline's key column %q is not unique and non-null", tc.Key)
		}
		return tc.Key, ""
	}
	if k := firstKey(t, name, func(c kg.Column) bool { return keyLike(c.Name) }); k != "" {
		return k, ""
	}
	if slices.Contains(t.PrimaryKeys, name) {
		return name, ""
	}
	if k := firstKey(t, name, func(c kg.Column) bool { return isText(c.Type) || strings.Contains(strings.ToUpper(c.Type), "INT") }); k != "" {
		return k, ""
	}
	return "", "no candidate key (a unique, non-null column)"
}

// firstKey returns the first candidate key of t but name that ok takes.
func firstKey(t kg.Table, name string, ok func(kg.Column) bool) string {
	for _, k := range t.PrimaryKeys {
		if c, found := column(t, k); found && k != name && ok(c) {
			return k
		}
	}
	return ""
}

// eventLike returns what makes t look like a table of events or
// measurements (a date or time column, two or more foreign keys out), or "".
func eventLike(t kg.Table) string {
	var why []string
	for _, c := range t.Columns {
		u := strings.ToUpper(c.Type)
		if strings.Contains(u, "DATE") || strings.Contains(u, "TIME") {
			why = append(why, "a "+strings.ToLower(c.Type)+" column "+c.Name)
			break
		}
	}
	if n := len(goodFKs(t)); n >= 2 {
		why = append(why, fmt.Sprintf("%d foreign keys out", n))
	}
	return strings.Join(why, ", ")
}

func goodFKs(t kg.Table) []kg.ForeignKey {
	var out []kg.ForeignKey
	for _, fk := range t.ForeignKeys {
		if fk.Score >= MinFKScore {
			out = append(out, fk)
		}
	}
	return out
}

// tableRows holds the rows of one entity table, in key order.
type tableRows struct {
	t             kg.Table
	d             Decision
	cols          []string
	rows          [][]sql.NullString
	keyAt, nameAt int
}

// readRows reads every row of an entity table as text, in key order.
func readRows(ctx context.Context, db *sql.DB, t kg.Table, d Decision) (_ *tableRows, err error) {
	tr := &tableRows{t: t, d: d}
	sel := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		tr.cols = append(tr.cols, c.Name)
		sel[i] = "CAST(" + duck.QuoteIdent(c.Name) + " AS VARCHAR)"
	}
	tr.keyAt, tr.nameAt = slices.Index(tr.cols, d.Key), slices.Index(tr.cols, d.Name)
	q := fmt.Sprintf("SELECT %s FROM %s ORDER BY %s", strings.Join(sel, ", "), duck.QuoteIdent(t.Name), duck.QuoteIdent(d.Key))
	rs, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read rows of table %s: %w", t.Name, err)
	}
	defer func() { err = cmp.Or(err, rs.Close()) }()
	for rs.Next() {
		row := make([]sql.NullString, len(sel))
		ptrs := make([]any, len(sel))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read rows of table %s: %w", t.Name, err)
		}
		tr.rows = append(tr.rows, row)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read rows of table %s: %w", t.Name, err)
	}
	return tr, nil
}

// reservedProps are the property names of a row entity that a column of
// the same name does not overwrite; such a column is stored as column_NAME.
var reservedProps = map[string]bool{kg.PropTable: true, kg.PropKeyColumn: true, kg.PropKey: true, "type": true, "name": true}

// entities returns a node per row, its ROW_OF edge to the table node and
// the ROW_OF link of the link log.
func (tr *tableRows) entities() ([]kg.Node, []kg.Edge, []kg.Link) {
	table, tid := tr.t.Name, kg.TableNodeID(tr.t.Name)
	labels := []string{"Entity"}
	if !kg.IsStructuralLabel(tr.d.Type) {
		labels = append(labels, tr.d.Type)
	}
	rule, by := RuleRowProfile, "auto"
	if tr.d.By == "pipeline" {
		rule, by = RuleRowPipeline, "pipeline"
	}
	var nodes []kg.Node
	var edges []kg.Edge
	var links []kg.Link
	for _, row := range tr.rows {
		key := row[tr.keyAt].String
		id, target := RowID(table, key), kg.RowTarget(table, key)
		name := strings.Join(strings.Fields(row[tr.nameAt].String), " ")
		if name == "" {
			name = key
		}
		nodes = append(nodes, kg.Node{
			ID: id, Name: name, Kind: kg.NodeConcept, Labels: slices.Clone(labels), Properties: tr.props(row),
		})
		eid := kg.EdgeID(id, kg.LinkRowOf, tid)
		edges = append(edges, kg.Edge{
			ID: eid, Src: id, Dst: tid, Type: kg.LinkRowOf, Confidence: 1, Evidence: target,
			Properties: map[string]string{kg.PropKeyColumn: tr.d.Key, kg.PropKey: key},
		})
		links = append(links, kg.Link{
			ID: eid, Src: id, SrcName: name, Dst: tid, Target: target, Type: kg.LinkRowOf, Score: 1,
			Signals: []string{"key:" + tr.d.Key, "name:" + tr.d.Name}, Band: kg.LinkBandLinked,
			Rule: rule, DecidedBy: by, Evidence: []string{target},
		})
	}
	return nodes, edges, links
}

// props returns a row entity's properties: its table, key column, key and
// type, and the row's other non-null values that are short enough.
func (tr *tableRows) props(row []sql.NullString) map[string]string {
	p := map[string]string{
		kg.PropTable: tr.t.Name, kg.PropKeyColumn: tr.d.Key, kg.PropKey: row[tr.keyAt].String, "type": tr.d.Type,
	}
	for i, c := range tr.cols {
		v := row[i]
		if i == tr.keyAt || i == tr.nameAt || !v.Valid || utf8.RuneCountInString(v.String) > MaxPropLength {
			continue
		}
		if reservedProps[c] {
			c = "column_" + c
		}
		p[c] = v.String
	}
	return p
}

// foreignEdges returns an edge per row for every foreign key of the table
// into another entity table, from the row to the row it references, typed
// by EdgeType and citing both rows.
func (tr *tableRows) foreignEdges(all map[string]*tableRows) []kg.Edge {
	seen := map[string]bool{}
	var out []kg.Edge
	for _, fk := range goodFKs(tr.t) {
		ref := all[fk.RefTable]
		at := slices.Index(tr.cols, fk.Column)
		if ref == nil || at < 0 {
			continue
		}
		keyOf := ref.keys(fk.RefColumn)
		typ := EdgeType(fk.Column)
		on := fmt.Sprintf("%s.%s = %s.%s", tr.t.Name, fk.Column, fk.RefTable, fk.RefColumn)
		for _, row := range tr.rows {
			rk, ok := keyOf[row[at].String]
			if !row[at].Valid || !ok {
				continue
			}
			key := row[tr.keyAt].String
			src, dst := RowID(tr.t.Name, key), RowID(ref.t.Name, rk)
			id := kg.EdgeID(src, typ, dst)
			if src == dst || seen[id] {
				continue
			}
			seen[id] = true
			from, to := kg.RowTarget(tr.t.Name, key), kg.RowTarget(ref.t.Name, rk)
			out = append(out, kg.Edge{
				ID: id, Src: src, Dst: dst, Type: typ, Confidence: fk.Score,
				Evidence:   fmt.Sprintf("%s.%s = %s", from, fk.Column, row[at].String),
				Properties: map[string]string{"from": from, "to": to, "on": on},
			})
		}
	}
	return out
}

// keys maps the values of column col to the keys of their rows (the first
// row in key order when a value repeats).
func (tr *tableRows) keys(col string) map[string]string {
	at := slices.Index(tr.cols, col)
	out := map[string]string{}
	if at < 0 {
		return out
	}
	for _, row := range tr.rows {
		if _, ok := out[row[at].String]; row[at].Valid && !ok {
			out[row[at].String] = row[tr.keyAt].String
		}
	}
	return out
}

// TypeName is the entity type of a table's rows: its name cut into words
// at anything but letters and digits, the last word singular (Singular),
// each word title-cased, joined: suppliers → Supplier, purchase_orders →
// PurchaseOrder, categories → Category.
func TypeName(table string) string {
	words := strings.FieldsFunc(table, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return "Row"
	}
	words[len(words)-1] = Singular(words[len(words)-1])
	var b strings.Builder
	for _, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		b.WriteRune(unicode.ToUpper(r))
		b.WriteString(w[n:])
	}
	return b.String()
}

// irregular plurals that the suffix rules of Singular get wrong.
var irregular = map[string]string{
	"people": "person", "children": "child", "men": "man", "women": "woman", "data": "data",
	"news": "news", "series": "series", "species": "species", "analyses": "analysis",
	"indices": "index", "criteria": "criterion", "statuses": "status", "addresses": "address",
}

// Singular returns the singular of an English plural by a small rule: a
// few irregular words; -ies → -y; -sses, -shes, -ches, -xes, -zzes lose
// -es; words of three letters or fewer and words ending in -ss, -us or -is
// stay; any other final -s goes.
func Singular(w string) string {
	lw := strings.ToLower(w)
	if s, ok := irregular[lw]; ok {
		return matchCase(w, s)
	}
	switch {
	case len(lw) <= 3:
		return w
	case strings.HasSuffix(lw, "ies"):
		return w[:len(w)-3] + matchCase(w[len(w)-3:], "y")
	case hasAnySuffix(lw, "sses", "shes", "ches", "xes", "zzes"):
		return w[:len(w)-2]
	case hasAnySuffix(lw, "ss", "us", "is"):
		return w
	case strings.HasSuffix(lw, "s"):
		return w[:len(w)-1]
	}
	return w
}

func hasAnySuffix(s string, suffixes ...string) bool {
	return slices.ContainsFunc(suffixes, func(x string) bool { return strings.HasSuffix(s, x) })
}

// matchCase returns s in upper case when ref is all upper case.
func matchCase(ref, s string) string {
	if ref != strings.ToLower(ref) && ref == strings.ToUpper(ref) {
		return strings.ToUpper(s)
	}
	return s
}

// agentVerbs type the edge of a foreign-key column named for the agent of
// a verb: parts.supplier_id gives (part)-[:SUPPLIED_BY]->(supplier).
var agentVerbs = map[string]string{
	"supplier": "SUPPLIED_BY", "manufacturer": "MANUFACTURED_BY", "maker": "MADE_BY", "producer": "PRODUCED_BY",
	"owner": "OWNED_BY", "vendor": "SOLD_BY", "seller": "SOLD_BY", "manager": "MANAGED_BY", "creator": "CREATED_BY",
	"author": "WRITTEN_BY", "publisher": "PUBLISHED_BY", "operator": "OPERATED_BY", "distributor": "DISTRIBUTED_BY",
	"carrier": "CARRIED_BY", "provider": "PROVIDED_BY", "assignee": "ASSIGNED_TO", "reporter": "REPORTED_BY",
}

// structuralEdges are edge types of the graph's own structure, which a
// foreign key's type never spells.
var structuralEdges = map[string]bool{"HAS_CHUNK": true, "HAS_COLUMN": true, "MENTIONS": true, "JOINS": true}

// EdgeType is the type of the edges a foreign-key column gives: the
// column's stem (its name less a key suffix: _id, _key, _code, _no, _ref,
// or a trailing id) is looked up in a small table of agent nouns
// (supplier → SUPPLIED_BY, manufacturer → MANUFACTURED_BY, owner →
// OWNED_BY, …); any other stem gives HAS_STEM (plant_id → HAS_PLANT), an
// empty one HAS_ROW, and a stem that would spell a structural edge type
// gives HAS_STEM_ROW.
func EdgeType(column string) string {
	stem := strings.ToLower(column)
	for _, s := range []string{"_id", "_key", "_code", "_no", "_ref", "id"} {
		if t, ok := strings.CutSuffix(stem, s); ok && len(strings.Trim(t, "_- ")) >= 2 {
			stem = t
			break
		}
	}
	stem = strings.Trim(stem, "_- ")
	if v, ok := agentVerbs[stem]; ok {
		return v
	}
	up := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToUpper(r)
		}
		return '_'
	}, stem)
	typ := "HAS_" + up
	if up == "" {
		typ = "HAS_ROW"
	}
	if structuralEdges[typ] {
		typ += "_ROW"
	}
	return typ
}
