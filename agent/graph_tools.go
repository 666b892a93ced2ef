package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"kgforge/kg"
)

// Names of the graph operators.
const (
	ToolNeighbours  = "neighbours"
	ToolPath        = "path"
	ToolSubgraph    = "subgraph"
	ToolDegree      = "degree"
	ToolComplement  = "complement"
	ToolValidAt     = "valid_at"
	ToolPageRank    = "pagerank"
	ToolBetweenness = "betweenness"
	ToolComponents  = "components"
	ToolRemoval     = "removal"
)

// Bounds of the operators' arguments.
const (
	maxGraphListed = 200 // nodes or edges one call lists
	maxTop         = 50  // k of the top-k operators
	maxHops        = 3   // k of subgraph
)

// Schema pieces the operators share.
const (
	pNode  = `{"type":"string","description":"a node id (or a name that only one node has); grep finds ids"}`
	pTypes = `{"type":"array","items":{"type":"string"},"description":"edge types to follow; every type when left out"}`
	pDir   = `{"type":"string","enum":["out","in","both"],"description":"out: edges from the node, in: edges to it, both (the default)"}`
	pLabel = `{"type":"string","description":"a node label, as ls lists them"}`
	pLimit = `{"type":"integer","minimum":1,"maximum":200,"description":"how many to list"}`
	pTopK  = `{"type":"integer","minimum":1,"maximum":50,"description":"how many top nodes (default 10)"}`
)

// schema is an object schema of the given properties; required lists the
// names it needs (none for nil).
func schema(required []string, props ...string) json.RawMessage {
	if required == nil {
		required = []string{}
	}
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"type":"object","required":` + string(req) + `,"properties":{` + strings.Join(props, ",") + `}}`)
}

func prop(name, s string) string { return `"` + name + `":` + s }

// graphOp is one graph operator: it decodes its own arguments (with the
// schema for the malformed-call error) and runs over the loaded graph.
type graphOp struct {
	name, desc string
	params     json.RawMessage
	run        func(ctx context.Context, g *graphState, c opCall) (string, error)
}

// opCall is one operator call: its tool, schema and raw arguments.
type opCall struct {
	tool   string
	params json.RawMessage
	args   json.RawMessage
}

func (c opCall) decode(v any) error { return decode(c.tool, c.params, c.args, v) }

// malformed is a call error for arguments that fit the schema's shape but
// not its bounds.
func (c opCall) malformed(format string, a ...any) error {
	return &CallError{Tool: c.tool, Kind: FailMalformed, Msg: fmt.Sprintf(format, a...), Hint: "arguments are a JSON object with this schema: " + string(c.params)}
}

// graphTools are the graph operators over the bundle's nodes and edges.
func (t *Toolbox) graphTools() []Tool {
	ops := slices.Concat(localOps(), globalOps())
	tools := make([]Tool, len(ops))
	for i, op := range ops {
		tools[i] = Tool{
			Name: op.name, Description: op.desc, Params: op.params,
			Run: func(ctx context.Context, args json.RawMessage) (string, error) {
				g, err := t.graphOf(ctx)
				if err != nil {
					return "", err
				}
				return op.run(ctx, g, opCall{op.name, op.params, args})
			},
		}
	}
	return tools
}

// lookup finds a node by id, or by a name only one node has.
func (g *graphState) lookup(c opCall, ref string) (int32, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return 0, c.malformed("no node given")
	}
	if i, ok := g.index[ref]; ok {
		return i, nil
	}
	same := g.byName[kg.NormalizeName(ref)]
	switch {
	case len(same) == 1:
		return same[0], nil
	case len(same) > 1:
		shown := make([]string, 0, 5)
		for _, i := range same[:min(5, len(same))] {
			shown = append(shown, g.show(i))
		}
		return 0, &CallError{Tool: c.tool, Kind: FailNotFound, Msg: fmt.Sprintf("%d nodes are named %q", len(same), ref), Hint: "pass one id: " + strings.Join(shown, "; ")}
	}
	return 0, &CallError{Tool: c.tool, Kind: FailNotFound, Msg: fmt.Sprintf("no node has the id or name %q", ref), Hint: "use grep to find a node's id, or ls to see the labels"}
}

// label finds a label by name, ignoring case; "" is no label (-1).
func (g *graphState) label(c opCall, name string) (int32, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return -1, nil
	}
	if i := slices.Index(g.labelNames, name); i >= 0 {
		return int32(i), nil
	}
	if i := slices.IndexFunc(g.labelNames, func(l string) bool { return strings.EqualFold(l, name) }); i >= 0 {
		return int32(i), nil
	}
	counts := make([]int, len(g.labelNames))
	for i, m := range g.labelMembers {
		counts[i] = len(m)
	}
	return 0, &CallError{Tool: c.tool, Kind: FailNotFound, Msg: fmt.Sprintf("no node has the label %q", name), Hint: "the labels are " + mostCommon(g.labelNames, counts, 30)}
}

// typeMask turns edge type names into a mask over the type numbers; no
// names is no mask (every type).
func (g *graphState) typeMask(c opCall, types []string) ([]bool, error) {
	if len(types) == 0 {
		return nil, nil
	}
	mask := make([]bool, len(g.typeNames))
	for _, name := range types {
		i := slices.Index(g.typeNames, strings.TrimSpace(name))
		if i < 0 {
			i = slices.IndexFunc(g.typeNames, func(t string) bool { return strings.EqualFold(t, strings.TrimSpace(name)) })
		}
		if i < 0 {
			counts := make([]int, len(g.typeNames))
			for _, t := range g.eType {
				counts[t]++
			}
			return nil, &CallError{Tool: c.tool, Kind: FailNotFound, Msg: fmt.Sprintf("no edge has the type %q", name), Hint: "the edge types are " + mostCommon(g.typeNames, counts, 30)}
		}
		mask[i] = true
	}
	return mask, nil
}

// mostCommon lists names with their counts, the most common first, at
// most n of them; ties by name.
func mostCommon(names []string, counts []int, n int) string {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(names[a], names[b])) })
	parts := make([]string, 0, min(n, len(order)))
	for _, i := range order[:min(n, len(order))] {
		parts = append(parts, fmt.Sprintf("%s (%d)", names[i], counts[i]))
	}
	s := strings.Join(parts, ", ")
	if len(order) > n {
		s += fmt.Sprintf(", and %d more", len(order)-n)
	}
	if s == "" {
		s = "none: the graph is empty"
	}
	return s
}

// edgeFilter reads the edge types and the direction (both by default) that
// most operators take.
func (g *graphState) edgeFilter(c opCall, types []string, direction string) ([]bool, dir, error) {
	mask, err := g.typeMask(c, types)
	if err != nil {
		return nil, 0, err
	}
	d, err := c.direction(direction, dirBoth)
	return mask, d, err
}

// direction reads a direction argument; "" is def.
func (c opCall) direction(s string, def dir, allowed ...dir) (dir, error) {
	d := def
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
	case "out":
		d = dirOut
	case "in":
		d = dirIn
	case "both":
		d = dirBoth
	default:
		return 0, c.malformed("direction %q is not out, in or both", s)
	}
	if len(allowed) > 0 && !slices.Contains(allowed, d) {
		return 0, c.malformed("direction %s is not one this tool takes", d)
	}
	return d, nil
}

// bound reads a count argument: 0 is def, and it must lie in 1..hi.
func (c opCall) bound(name string, v, def, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < 1 || v > hi {
		return 0, c.malformed("%s is %d; it must be from 1 to %d", name, v, hi)
	}
	return v, nil
}

// capped is the note under a list cut at its limit.
func capped(shown, total int, how string) string {
	if shown >= total {
		return ""
	}
	return fmt.Sprintf("\n… (%d of %d shown; %s)", shown, total, how)
}
