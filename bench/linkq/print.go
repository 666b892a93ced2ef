package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Print writes the reports side by side as Markdown tables, then each
// one's right, wrong and missed examples.
func Print(w io.Writer, reports []*Report) error {
	var b strings.Builder
	summary(&b, reports)
	for _, r := range reports {
		printDetails(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func summary(w *strings.Builder, reports []*Report) {
	head := "| link kind |"
	rule := "|---|"
	for _, r := range reports {
		head += " " + r.Label + ": P | R (found/gold) |"
		rule += "---|---|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for i, s := range reports[0].Scores {
		line := "| " + s.Kind + " |"
		for _, r := range reports {
			line += " " + cell(r.Scores[i]) + " |"
		}
		fmt.Fprintln(w, line)
	}
	rows := []struct {
		name string
		f    func(*Report) string
	}{
		{"duplicates (issue's two)", func(r *Report) string { return groups(r.Duplicates, true) }},
		{"duplicates (all)", func(r *Report) string { return groups(r.Duplicates, false) }},
		{"distinct names kept apart", func(r *Report) string { return groups(r.Distinct, false) }},
		{"persons not typed as a company", persons},
		{"chunks linked to a row entity", func(r *Report) string {
			u := r.Useful
			return fmt.Sprintf("%d/%d (gold %d)", u.ChunksLinked, u.Chunks, u.ChunksGold)
		}},
		{"row entities mentioned in a document", func(r *Report) string {
			u := r.Useful
			return fmt.Sprintf("%d/%d (gold %d/%d)", u.RowsMentioned, u.RowEntities, u.GoldRowsMentioned, u.GoldRows)
		}},
		{"link log", func(r *Report) string {
			if !r.HasLinkLog {
				return "none"
			}
			return fmt.Sprintf("%d links %s", r.Counts["links"], counts(r.LinkBands))
		}},
		{"graph", func(r *Report) string {
			return fmt.Sprintf("%d nodes, %d edges, %d chunks, %d triplets", r.Counts["nodes"], r.Counts["edges"], r.Counts["chunks"], r.Counts["triplets"])
		}},
	}
	for _, row := range rows {
		line := "| " + row.name + " |"
		for _, r := range reports {
			line += " " + row.f(r) + " | |"
		}
		fmt.Fprintln(w, line)
	}
}

func cell(s Score) string {
	p := "–"
	if s.TP+s.FP > 0 {
		p = fmt.Sprintf("%.2f", s.Precision)
	}
	return fmt.Sprintf("%s | %.2f (%d/%d)", p, s.Recall, s.Found, s.Gold)
}

// groups says how many groups came out right, of those whose names are in
// the graph, and how many are not (absent: the model or the dictionary did
// not bring two of their names into the graph).
func groups(gs []GroupResult, issueOnly bool) string {
	ok, n, absent := 0, 0, 0
	for _, g := range gs {
		if issueOnly && !g.Issue {
			continue
		}
		switch {
		case g.State == StateAbsent:
			absent++
		case g.OK:
			ok++
			n++
		default:
			n++
		}
	}
	return fmt.Sprintf("%d/%d (%d absent)", ok, n, absent)
}

func persons(r *Report) string {
	ok, present := 0, 0
	for _, p := range r.Persons {
		if p.State != StateAbsent {
			present++
		}
		if p.OK && p.State != StateAbsent {
			ok++
		}
	}
	return fmt.Sprintf("%d/%d in the graph (%d persons)", ok, present, len(r.Persons))
}

func counts(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	return "(" + strings.Join(parts, ", ") + ")"
}

func printDetails(w *strings.Builder, r *Report) {
	fmt.Fprintf(w, "\n## %s\n\n", r.Label)
	fmt.Fprintf(w, "entity tables: %s; edge types between row entities: %s\n", counts(r.EntityTables), counts(r.EdgeTypes))
	for _, s := range r.Scores {
		fmt.Fprintf(w, "\n%s: P %.2f R %.2f (TP %d, FP %d of which unjudged %d; found %d of %d)", s.Kind, s.Precision, s.Recall, s.TP, s.FP, s.Unjudged, s.Found, s.Gold)
		if s.Note != "" {
			fmt.Fprintf(w, "; %s", s.Note)
		}
		fmt.Fprintln(w)
		for _, x := range s.Right {
			fmt.Fprintln(w, "  right:", x)
		}
		for _, x := range s.Wrong {
			fmt.Fprintln(w, "  wrong:", x)
		}
		for _, x := range s.Missed {
			fmt.Fprintln(w, "  missed:", x)
		}
	}
	fmt.Fprintln(w)
	for _, g := range append(append([]GroupResult{}, r.Duplicates...), r.Distinct...) {
		fmt.Fprintf(w, "group %s: %s, %d nodes, ok %v %s\n", strings.Join(g.Names, " / "), g.State, g.Nodes, g.OK, g.Detail)
	}
	for _, p := range r.Persons {
		fmt.Fprintf(w, "person %s: %s (types %s)\n", p.Name, p.State, strings.Join(p.Types, ", "))
	}
}
