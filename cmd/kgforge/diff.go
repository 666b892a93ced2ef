package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"kgforge/bundle"
	"kgforge/internal/duck"
	"kgforge/kg"

	"github.com/spf13/cobra"
)

// bundleDiffCmd is `kgforge bundle diff`: two bundles compared by content.
func bundleDiffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two bundles by content: files by checksum, data tables by digest, each bundle verified first; exit 1 when they differ (kgforge diff compares their graphs item by item)",
		Args:  usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var ms [2]bundle.Manifest
			for i, path := range args {
				b, err := bundle.Open(path)
				if err != nil {
					return err
				}
				// The manifests' table digests are compared, so they are
				// recomputed first, as verify does: Open checks only the
				// data file's checksum, which can be forged with it.
				verr := b.VerifyTables(cmd.Context(), duck.Settings{})
				if verr != nil {
					verr = fmt.Errorf("bundle diff: bundle %s does not match its manifest, so it is not compared: %w", "AB"[i:i+1], verr)
				}
				ms[i] = b.Manifest
				if err := errors.Join(verr, b.Close()); err != nil {
					return err
				}
			}
			diffs := bundle.Compare(ms[0], ms[1])
			count := map[string]int{}
			for _, d := range diffs {
				fmt.Print(termText(fmt.Sprintf("%s %s: %s\n", d.Kind, d.Name, d.Detail)))
				count[d.Kind]++
			}
			if len(diffs) > 0 {
				return fmt.Errorf("bundles %s (A) and %s (B) differ: %d files, %d tables", args[0], args[1], count["file"], count["table"])
			}
			how := "data tables by digest"
			if !ms[0].HasTableDigests() || !ms[1].HasTableDigests() {
				how = bundle.DataFile + " by its bytes (a bundle before format 1.3 has no table digests)"
			}
			fmt.Print(termText(fmt.Sprintf("same content: build %s and build %s (files by checksum, %s)\n", ms[0].BuildID, ms[1].BuildID, how)))
			return nil
		},
	}
}

// graphDiffCmd is `kgforge diff OLD NEW`: what changed in the graph
// between two builds, item by item.
func graphDiffCmd() *cobra.Command {
	var (
		asJSON bool
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "What changed between two bundles: nodes, edges, merges and links added, removed and changed (by id); exit 0 equal, 1 different",
		Long: `diff compares the graphs of two bundles (a bundle directory, a .tar, or an
output directory with a latest link) item by item: nodes and edges by id,
merges by node and member, links by id. An item with the same id and
different properties is changed, and the properties that differ are named.
It exits 0 when nothing differs and 1 when something does.

kgforge bundle diff is the other comparison: it checks the bundles' files by
checksum and data tables by digest, so it also sees chunks, vectors and
data rows, but says only which file differs, not which item.`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usageError(fmt.Errorf("--limit %d: must be 0 (all) or more", limit))
			}
			d, err := diffBundles(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(d); err != nil {
					return err
				}
			} else if err := d.print(os.Stdout, limit); err != nil {
				return err
			}
			if !d.Equal {
				return &exitError{code: exitFailed, err: fmt.Errorf("bundles differ: build %s (%s) and build %s (%s)", d.Old, args[0], d.New, args[1])}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the differences as JSON")
	cmd.Flags().IntVar(&limit, "limit", 20, "items listed per kind and change in text output (0: all)")
	return cmd
}

// graphDiff is what changed between two bundles' graphs.
type graphDiff struct {
	Old   string    `json:"old_build_id"`
	New   string    `json:"new_build_id"`
	Equal bool      `json:"equal"`
	Kinds []kindDif `json:"kinds"` // nodes, edges, merges, links, in that order
}

// kindDif is what changed among the items of one kind.
type kindDif struct {
	Kind    string    `json:"kind"`
	Old     int       `json:"old"` // items in OLD
	New     int       `json:"new"`
	Added   []item    `json:"added"`
	Removed []item    `json:"removed"`
	Changed []changed `json:"changed"`
}

// item is one node, edge, merge or link, by id with a readable label.
type item struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// changed is an item in both bundles whose properties differ.
type changed struct {
	item
	Fields []string `json:"fields"` // the properties that differ
}

// record is an item as the diff compares it: its properties by name, as
// JSON.
type record struct {
	label  string
	fields map[string]json.RawMessage
}

func diffBundles(ctx context.Context, oldPath, newPath string) (*graphDiff, error) {
	var sides [2]map[string]map[string]record
	var ids [2]string
	for i, path := range []string{oldPath, newPath} {
		b, err := bundle.Open(path)
		if err != nil {
			return nil, err
		}
		ids[i] = b.Manifest.BuildID
		sides[i], err = graphRecords(ctx, b)
		if err := errors.Join(err, b.Close()); err != nil {
			return nil, fmt.Errorf("diff: read %s: %w", path, err)
		}
	}
	d := &graphDiff{Old: ids[0], New: ids[1], Equal: true}
	for _, kind := range []string{"nodes", "edges", "merges", "links"} {
		k := compareRecords(kind, sides[0][kind], sides[1][kind])
		d.Equal = d.Equal && len(k.Added)+len(k.Removed)+len(k.Changed) == 0
		d.Kinds = append(d.Kinds, k)
	}
	return d, nil
}

// graphRecords reads a bundle's nodes, edges, merges and links by id.
func graphRecords(ctx context.Context, b *bundle.Bundle) (map[string]map[string]record, error) {
	out := map[string]map[string]record{"nodes": {}, "edges": {}, "merges": {}, "links": {}}
	add := func(kind, id, label string, v any) error {
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			return err
		}
		out[kind][id] = record{label: label, fields: fields}
		return nil
	}
	err := errors.Join(
		b.Nodes(ctx, func(n kg.Node) error { return add("nodes", n.ID, fmt.Sprintf("%s %q", n.Kind, n.Name), n) }),
		b.Edges(ctx, func(e kg.Edge) error { return add("edges", e.ID, e.Src+" -"+e.Type+"-> "+e.Dst, e) }),
		b.Merges(ctx, func(m kg.MergeDecision) error {
			return add("merges", m.ClusterID+"/"+m.Member, fmt.Sprintf("%q into %q", m.Member, m.Canonical), m)
		}),
		b.Links(ctx, func(l kg.Link) error {
			return add("links", l.ID, fmt.Sprintf("%q -%s-> %s (%s)", l.SrcName, l.Type, l.Target, l.Band), l)
		}),
	)
	return out, err
}

// compareRecords sorts the items of one kind into added, removed and
// changed, each by id.
func compareRecords(kind string, old, now map[string]record) kindDif {
	k := kindDif{Kind: kind, Old: len(old), New: len(now), Added: []item{}, Removed: []item{}, Changed: []changed{}}
	for _, id := range slices.Sorted(maps.Keys(now)) {
		o, ok := old[id]
		if !ok {
			k.Added = append(k.Added, item{id, now[id].label})
			continue
		}
		var fields []string
		for _, f := range slices.Sorted(maps.Keys(mergeKeys(o.fields, now[id].fields))) {
			if string(o.fields[f]) != string(now[id].fields[f]) {
				fields = append(fields, f)
			}
		}
		if len(fields) > 0 {
			k.Changed = append(k.Changed, changed{item{id, now[id].label}, fields})
		}
	}
	for _, id := range slices.Sorted(maps.Keys(old)) {
		if _, ok := now[id]; !ok {
			k.Removed = append(k.Removed, item{id, old[id].label})
		}
	}
	return k
}

func mergeKeys(a, b map[string]json.RawMessage) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// print writes the differences for a person: a line per kind, then at most
// limit items per change (0: all).
func (d *graphDiff) print(w io.Writer, limit int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "diff build %s -> build %s\n", d.Old, d.New)
	for _, k := range d.Kinds {
		fmt.Fprintf(&b, "%s: %d -> %d: %d added, %d removed, %d changed\n", k.Kind, k.Old, k.New, len(k.Added), len(k.Removed), len(k.Changed))
		list := func(sign string, n int, line func(i int) string) {
			for i := range n {
				if limit > 0 && i == limit {
					fmt.Fprintf(&b, "  %s … %d more (--limit 0 lists all)\n", sign, n-limit)
					return
				}
				fmt.Fprintf(&b, "  %s %s\n", sign, line(i))
			}
		}
		list("+", len(k.Added), func(i int) string { return k.Added[i].ID + " " + k.Added[i].Label })
		list("-", len(k.Removed), func(i int) string { return k.Removed[i].ID + " " + k.Removed[i].Label })
		list("~", len(k.Changed), func(i int) string {
			c := k.Changed[i]
			return fmt.Sprintf("%s %s: %v", c.ID, c.Label, c.Fields)
		})
	}
	if d.Equal {
		fmt.Fprintln(&b, "same graph: nodes, edges, merges and links")
	}
	_, err := io.WriteString(w, termText(b.String()))
	return err
}
