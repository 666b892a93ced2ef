package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A small model that gets a call wrong tends to make it again, word for
// word, until the budget is spent (a user saw cat {"id":"c17"} thirty
// times, each not_found, over 18 minutes). The loop counts a failed call
// repeated in a row: the second time, what the model is offered next
// changes (stuckOffer); the third time, the question ends without an
// answer (stuckText).
const stuckAfter = 3

// Bounds of what a stuck call is offered instead.
const (
	maxSeenShown = 20   // ids named in the note
	maxEnum      = 60   // values of a narrowed argument's enum
	maxIDTokens  = 1000 // distinct tokens of the results looked up as ids
	maxListing   = 1500 // bytes of the tables and columns named in the note
)

// idArgs are the arguments that take a node id (cat's id takes anything
// cat shows: an id of a node, edge or chunk, a table or a file).
var idArgs = []string{"id", "node", "from", "to", "target"}

// callKey is what makes two failed calls the same: the tool and the
// arguments canonicalised.
func callKey(s Step) string {
	return s.Tool + "\x00" + canonicalArgs(s.Args)
}

// canonicalArgs is a call's arguments as JSON with its objects' keys
// sorted and no spaces, numbers as written; no arguments and null are {}.
// Text that is not JSON is compacted as it is.
func canonicalArgs(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if len(bytes.TrimSpace(raw)) == 0 {
			return "{}"
		}
		return compact(raw)
	}
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return compact(raw)
	}
	return string(b)
}

// repeats counts the failed calls in a row that ended with s and are the
// same call (callKey), s included. The loop does not ask it of a reply
// that is no call (prose, a runaway argument): the model wrote no tool or
// arguments to repeat, only the loop's placeholder.
func (r *run) repeats(s Step) int {
	n, key := 1, callKey(s)
	for i := len(r.ans.Steps) - 1; i >= 0; i-- {
		prev := r.ans.Steps[i]
		if prev.ErrorKind == "" || callKey(prev) != key {
			break
		}
		n++
	}
	return n
}

// stuckText is the answer of a question ended at a call that failed
// stuckAfter times in a row: the call and its error, so that the user
// sees where the model got stuck. It holds no count in figures (the
// harness scores the text of an unanswered question like any other).
func stuckText(s Step) string {
	return fmt.Sprintf("no answer: the same call failed three times in a row, so the question was stopped: %s %s gave %s: %s",
		s.Tool, short(canonicalArgs(s.Args), maxArgLen), s.ErrorKind, s.Error)
}

// stuckOffer is what the model is offered after a call that failed twice
// in a row: a note after the result that names what exists instead, and,
// in the json and completion formats, the action schema of the next turn
// with the failing value taken out of the call (narrowSchema; nil when
// nothing could be). What exists depends on the failure: for a not_found
// id, the ids the results have shown so far and what ls lists at the root
// (tables and files, which cat also takes); for a failed query, the
// tables and their columns; for an unknown tool, the tools.
func (r *run) stuckOffer(ctx context.Context, s Step) (string, json.RawMessage, error) {
	var b strings.Builder
	b.WriteString(sameCallNote(r.sameCall(s)))
	b.WriteString("\nIt failed twice in a row: the same call a third time ends the question without an answer.")
	var schema json.RawMessage
	switch s.ErrorKind {
	case FailNotFound:
		seen, err := r.a.tools.seenIDs(ctx, append([]string{s.Error}, r.results()...))
		if err != nil {
			return "", nil, err
		}
		roots, err := r.a.tools.roots(ctx)
		if err != nil {
			return "", nil, err
		}
		ids := make([]string, 0, maxSeenShown)
		for _, id := range seen[:min(len(seen), maxSeenShown)] {
			ids = append(ids, id.ID+" ("+id.Kind+")")
		}
		if len(ids) > 0 {
			fmt.Fprintf(&b, "\nIds the results have shown so far, the latest first: %s.", strings.Join(ids, ", "))
		} else {
			b.WriteString("\nNo result has shown an id yet: ls, grep and sems show some.")
		}
		fmt.Fprintf(&b, "\nls with no arguments lists the bundle; cat also takes a table or file name: %s.", short(strings.Join(roots, ", "), maxListing))
		switch {
		case r.constrained():
			if schema, err = r.seenSchema(ctx, failedID(s)); err != nil {
				return "", nil, err
			}
		case r.a.opts.Format != FormatNative:
			schema = narrowSchema(r.a.offer, s, seen, roots)
		}
	case FailSQL, FailLimit:
		listing, err := r.a.tools.tableListing(ctx)
		if err != nil {
			return "", nil, err
		}
		b.WriteString("\nThe tables and their columns: " + listing)
	case FailUnknownTool:
		b.WriteString("\nThe tools are " + strings.Join(toolNames(r.a.offer), ", ") + ".")
	case FailUngrounded:
		b.WriteString("\nLook the answer up first: the next call cannot be answer.")
		var err error
		if schema, err = r.withoutAnswer(ctx); err != nil {
			return "", nil, err
		}
	}
	return b.String(), schema, nil
}

// results are the results of the calls that worked, the latest first
// (an id a failed call's message names is seen too: stuckOffer adds it).
func (r *run) results() []string {
	var out []string
	for i := len(r.ans.Steps) - 1; i >= 0; i-- {
		if s := r.ans.Steps[i]; s.ErrorKind == "" && s.Result != "" {
			out = append(out, s.Result)
		}
	}
	return out
}

// seenID is an id a result showed, and what it is: node, edge or chunk.
type seenID struct{ ID, Kind string }

// idToken matches the words of a result that could be ids.
var idToken = regexp.MustCompile(`[\p{L}\p{N}_][\p{L}\p{N}_.:/-]*`)

// seenIDs returns the ids of nodes, edges and chunks that texts show, in
// the order of their first mention. Only words with a digit are looked
// up: a bundle's ids are hex digests.
func (t *Toolbox) seenIDs(ctx context.Context, texts []string) ([]seenID, error) {
	var words []string
	at := map[string]int{}
texts:
	for _, text := range texts {
		for _, w := range idToken.FindAllString(text, -1) {
			w = strings.TrimRight(w, ".:/-")
			if _, ok := at[w]; ok || len(w) < 2 || len(w) > maxArgLen || !strings.ContainsAny(w, "0123456789") {
				continue
			}
			if len(words) == maxIDTokens {
				break texts
			}
			at[w] = len(words)
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return nil, nil
	}
	lits := make([]string, len(words))
	for i, w := range words {
		lits[i] = lit(w)
	}
	in := strings.Join(lits, ", ")
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT id, 'node' FROM memory.main.nodes WHERE id IN (%[1]s)
UNION ALL SELECT id, 'edge' FROM memory.main.edges WHERE id IN (%[1]s)
UNION ALL SELECT id, 'chunk' FROM memory.main.chunks WHERE id IN (%[1]s)`, in), 3*len(words))
	if err != nil {
		return nil, err
	}
	out := make([]seenID, 0, len(rows))
	for _, r := range rows {
		out = append(out, seenID{ID: r[0], Kind: r[1]})
	}
	slices.SortStableFunc(out, func(a, b seenID) int { return at[a.ID] - at[b.ID] })
	return out, nil
}

// roots are the names cat takes besides ids, as ls lists them at the
// root: the data tables, the graph tables and the bundle's files (but a
// graph table's own Parquet file, which cat shows as the table).
func (t *Toolbox) roots(ctx context.Context) ([]string, error) {
	tables, err := t.b.Tables()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, tb := range tables {
		out = append(out, tb.Name)
	}
	rows, _, err := t.rows(ctx, "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'memory' ORDER BY table_name", maxListed)
	if err != nil {
		return nil, err
	}
	graph := make([]string, len(rows))
	for i, r := range rows {
		graph[i] = r[0]
	}
	out = append(out, graph...)
	for _, f := range t.b.Files() {
		if view, ok := strings.CutSuffix(f, ".parquet"); !ok || !slices.Contains(graph, view) {
			out = append(out, f)
		}
	}
	return out, nil
}

// tableListing names the tables a query can read, data tables first, each
// with its columns: "suppliers(supplier_id, name); chunks(id, …)".
func (t *Toolbox) tableListing(ctx context.Context) (string, error) {
	rows, more, err := t.rows(ctx, `SELECT table_name, string_agg(column_name, ', ' ORDER BY ordinal_position) FROM information_schema.columns
WHERE table_catalog IN ('data', 'memory') AND table_schema = 'main' GROUP BY table_catalog, table_name ORDER BY table_catalog, table_name`, maxListed)
	if err != nil {
		return "", err
	}
	items := make([]string, len(rows))
	for i, r := range rows {
		items[i] = r[0] + "(" + r[1] + ")"
	}
	s := strings.Join(items, "; ")
	if more {
		s += "; …"
	}
	return short(s, maxListing) + ".", nil
}

// narrowSchema is the action schema for the turn after s failed twice in
// a row with not_found, with s's failing value taken out: each id
// argument s gave (idArgs) whose value the error names becomes an enum of
// the ids seen (nodes only, but for cat's id, which also takes edges,
// chunks and the roots), less the failing value. Where no value is left, an optional
// argument is dropped from the tool's arguments and a required one drops
// the tool from this turn (unless answer would be the only tool left).
// It returns nil when nothing changed.
func narrowSchema(tools []Tool, s Step, seen []seenID, roots []string) json.RawMessage {
	var args map[string]json.RawMessage
	if json.Unmarshal(s.Args, &args) != nil {
		return nil
	}
	out := make([]Tool, 0, len(tools))
	changed := false
	for _, tool := range tools {
		if tool.Name != s.Tool {
			out = append(out, tool)
			continue
		}
		params, drop := narrowParams(tool, args, s.Error, seen, roots)
		switch {
		case drop && len(tools) > 2:
			changed = true
		case params != nil:
			tool.Params, changed = params, true
			out = append(out, tool)
		default:
			out = append(out, tool)
		}
	}
	if !changed {
		return nil
	}
	return actionSchema(out)
}

// narrowParams is a tool's parameters with the id arguments of a failed
// call narrowed (narrowSchema): nil when none was, drop when a required
// one has no value left.
func narrowParams(tool Tool, args map[string]json.RawMessage, errText string, seen []seenID, roots []string) (json.RawMessage, bool) {
	return enumIDArgs(tool, func(arg string) ([]string, bool) {
		var failed string
		if json.Unmarshal(args[arg], &failed) != nil || !names(errText, failed) {
			return nil, false // another argument failed (a label, an edge type)
		}
		return enumValues(tool.Name == ToolCat && arg == "id", failed, seen, roots), true
	})
}

// enumIDArgs rewrites a tool's parameters: each id argument (idArgs) for
// which values says so becomes an enum of the values it gives; one with
// none is dropped when optional (and ls's type with ls's id, which it
// needs), and a required one drops the tool (drop). It returns nil when
// no argument was touched.
func enumIDArgs(tool Tool, values func(arg string) ([]string, bool)) (json.RawMessage, bool) {
	keys, vals, ok := orderedObject(tool.Params)
	if !ok {
		return nil, false
	}
	pk, pv, ok := orderedObject(field(keys, vals, "properties"))
	if !ok {
		return nil, false
	}
	var required []string
	_ = json.Unmarshal(field(keys, vals, "required"), &required) // none when absent
	changed := false
	for j := 0; j < len(pk); j++ {
		if !slices.Contains(idArgs, pk[j]) {
			continue
		}
		vs, touch := values(pk[j])
		if !touch {
			continue
		}
		changed = true
		if len(vs) == 0 {
			if slices.Contains(required, pk[j]) {
				return nil, true
			}
			dropped := pk[j]
			pk, pv = slices.Delete(pk, j, j+1), slices.Delete(pv, j, j+1)
			j--
			if tool.Name == ToolLs && dropped == "id" { // ls's type picks edges of the id's node: alone it is an error
				if k := slices.Index(pk, "type"); k >= 0 {
					pk, pv = slices.Delete(pk, k, k+1), slices.Delete(pv, k, k+1)
					if k <= j {
						j--
					}
				}
			}
			continue
		}
		enum, _ := json.Marshal(vs) // strings always marshal
		pk2, pv2 := []string{"type", "enum"}, []json.RawMessage{json.RawMessage(`"string"`), enum}
		if pkk, pvv, ok := orderedObject(pv[j]); ok {
			if d := field(pkk, pvv, "description"); d != nil {
				pk2, pv2 = append(pk2, "description"), append(pv2, d)
			}
		}
		pv[j] = writeObject(pk2, pv2)
	}
	if !changed {
		return nil, false
	}
	for i, k := range keys {
		if k == "properties" {
			vals[i] = writeObject(pk, pv)
		}
	}
	return writeObject(keys, vals), false
}

// names reports whether a tool's error quotes value, as the tools quote
// the reference they did not find.
func names(errText, value string) bool {
	v := strings.TrimSpace(value)
	return strings.Contains(errText, fmt.Sprintf("%q", v)) || strings.Contains(errText, fmt.Sprintf("%q", short(v, nameInLine)))
}

// enumValues are the values an id argument may take in the turn after
// failed failed twice: the ids seen (nodes only unless all is true, then
// also the roots), less failed, at most maxEnum.
func enumValues(all bool, failed string, seen []seenID, roots []string) []string {
	failed = strings.TrimSpace(failed)
	var out []string
	add := func(v string) {
		if len(out) < maxEnum && !strings.EqualFold(v, failed) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, id := range seen {
		if all || id.Kind == "node" {
			add(id.ID)
		}
	}
	if all {
		for _, r := range roots {
			add(r)
		}
	}
	return out
}
