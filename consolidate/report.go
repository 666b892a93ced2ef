package consolidate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kgforge/kg"
)

// maxReportRows bounds each section of the merge report; the Parquet merge
// log holds everything.
const maxReportRows = 500

// MergeReport renders the merge log as Markdown for a person to read: the
// uncertain pairs, most doubtful first; every node of several names with
// how each joined; the links that splits and cannot-links cut; the
// overrides that matched nothing.
func MergeReport(g kg.Graph, r Resolution) string {
	var b strings.Builder
	cell := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s) }
	links := func(title, decision, none string) {
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		var rows []kg.MergeLink
		for _, l := range g.MergeLinks {
			if l.Decision == decision {
				rows = append(rows, l)
			}
		}
		if len(rows) == 0 {
			fmt.Fprintf(&b, "%s\n", none)
			return
		}
		b.WriteString("| a | b | cosine | band | rule | signals | doubt |\n|---|---|---|---|---|---|---|\n")
		for i, l := range rows {
			if i == maxReportRows {
				fmt.Fprintf(&b, "\n… and %d more (merge_links.parquet has them all)\n", len(rows)-i)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %.3f | %s | %s | %s | %.2f |\n", cell(l.A), cell(l.B), l.Cosine, l.Band, l.Rule, strings.Join(l.Signals, ", "), l.Doubt)
		}
	}

	st := r.Stats
	b.WriteString("# Merge report\n\n")
	fmt.Fprintf(&b, "%d distinct names (%d embedded), %d candidate pairs (%d from name keys, %d from embeddings), %d merged, %d uncertain, %d clusters split.\n",
		st.Entities, r.Embedded, st.Candidates, st.KeyPairs, st.VectorPairs, st.Merged, st.Uncertain, st.Splits)
	links("Uncertain pairs, left apart (most doubtful first)", "uncertain", "None.")

	b.WriteString("\n## Nodes of several names\n\n")
	members := map[string][]kg.MergeDecision{}
	for _, m := range g.Merges {
		members[m.ClusterID] = append(members[m.ClusterID], m)
	}
	var ids []string
	for id, ms := range members {
		if len(ms) > 1 {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int {
		return strings.Compare(members[a][0].Canonical, members[b][0].Canonical)
	})
	if len(ids) == 0 {
		b.WriteString("None.\n")
	}
	for i, id := range ids {
		if i == maxReportRows {
			fmt.Fprintf(&b, "\n… and %d more (merges.parquet has them all)\n", len(ids)-i)
			break
		}
		ms := members[id]
		fmt.Fprintf(&b, "- **%s** (`%s`)\n", cell(ms[0].Canonical), id)
		for _, m := range ms {
			by := ""
			if m.DecidedBy != "auto" {
				by = ", decided by " + m.DecidedBy
			}
			score := fmt.Sprintf("cosine %.3f", m.Score)
			if m.Band == "" {
				score = "no embedding" // joined by a name key or an override
			}
			if m.Rule == "single" {
				score = "canonical"
			}
			fmt.Fprintf(&b, "  - %s [%s]: %s, %s, %d mentions%s\n", cell(m.Member), cell(m.MemberType), m.Rule, score, m.Mentions, by)
		}
	}
	links("Links cut by a split", "split", "None.")
	links("Pairs kept apart by a cannot-link", "cannot_link", "None.")
	if len(r.Predicates) > 0 {
		b.WriteString("\n## Predicates renamed\n\n| extracted | in the graph |\n|---|---|\n")
		for _, p := range slices.Sorted(maps.Keys(r.Predicates)) {
			fmt.Fprintf(&b, "| %s | %s |\n", cell(p), cell(r.Predicates[p]))
		}
	}
	if len(r.NotEntities) > 0 {
		fmt.Fprintf(&b, "\n## Names that are not entities\n\nAn expert marked these names as not entities (not_entity): they have no node, and the %d triplets whose subject or object they were are dropped.\n\n", r.TripletsDropped[DropNotEntity])
		b.WriteString("| name | as extracted | mentions dropped | triplets dropped | decided by | note |\n|---|---|---|---|---|---|\n")
		for _, d := range r.NotEntities {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s |\n", cell(d.Ref), cell(strings.Join(d.Surfaces, ", ")), d.Mentions, d.Triplets, cell(cmp.Or(d.By, "override")), cell(d.Note))
		}
	}
	if len(r.UnmatchedOverrides) > 0 {
		b.WriteString("\n## Overrides not applied\n\n")
		for _, o := range r.UnmatchedOverrides {
			fmt.Fprintf(&b, "- %s %s: %s\n", o.Kind, cell(strings.Join(o.Refs, " / ")), cell(o.Reason))
		}
	}
	return b.String()
}
