package main

import (
	"fmt"
	"io"
	"strings"
)

// printOutOfSample prints the out-of-sample report as Markdown tables.
func printOutOfSample(w io.Writer, o options, rep oosReport) {
	p := func(format string, args ...any) { _, _ = fmt.Fprintf(w, format, args...) } // stdout: a failed write has nowhere to go
	p("## Entity resolution out of sample\n\n")
	p("Leave one set out: for each set, the score is refitted and every threshold and rule picked on the other sets, then measured on it; ")
	p("the committed model (%s) is measured on the records outside its fit sample. In-sample figures are labelled so.\n\n", rep.Committed)
	p("| set | sample | problems | records | gold entities | gold pairs |\n|---|---|---|---|---|---|\n")
	for _, s := range rep.Sets {
		p("| %s | %s | %d | %d | %d | %d |\n", s.Name, s.Sample, s.Problems, s.Records, s.Entities, s.GoldPairs)
	}

	p("\n### Candidates: the true pairs kgforge's resolver considers before any scoring\n\n")
	p("| set | kind | records | true pairs | candidate pairs | candidates per record | recall: candidate pairs | recall: joined by a path of candidates |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Recall {
		kind := "all"
		if r.Kind != "" {
			kind = r.Kind
		}
		p("| %s | %s | %d | %d | %d | %.2f | %.3f (%d) | %.3f (%d) |\n", r.Set, kind, r.Records, r.TruePairs, r.Candidates,
			float64(r.Candidates)/float64(max(r.Records, 1)), r.Recall(), r.Found, r.ConnectedRecall(), r.Connected)
	}

	p("\n### What each fold fitted and picked without the set it holds out\n\n")
	p("| held out | fitted on | simple rule picked (mean pairs F1 there) | cosine picked | fuzzy picked | score: merge ≥ / uncertain ≥ | fit pairs | best simple rule on the held-out set (in-sample) |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Picks {
		p("| %s | %s | %s (%.3f) | %s | %s | %.3f / %.3f | %d | %s |\n", r.HeldOut, strings.Join(r.FittedOn, ", "), r.Simple, r.SimpleF1,
			r.Cosine, r.Fuzzy, r.Merge, r.Uncertain, r.FitPairs, r.BestSimple)
	}

	p("\n### Every configuration\n\n")
	p("| set | configuration | fit | pairs P | pairs R | pairs F1 [95%% CI] | B³ P | B³ R | B³ F1 [95%% CI] | clusters | near-misses merged |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|\n")
	near := map[string]int{}
	for _, s := range rep.Sets {
		near[s.Name] = s.NearMissPairs
	}
	for _, r := range rep.Results {
		nm := "—"
		if n := near[r.Set]; n > 0 {
			nm = fmt.Sprintf("%d / %d", r.NearMissMerged, n)
		}
		pw, b := r.Pairwise, r.B3
		p("| %s | %s | %s | %s | %.3f | %.3f [%.3f, %.3f] | %.3f | %.3f | %.3f [%.3f, %.3f] | %d | %s |\n",
			r.Set, configName(r), r.Fit, precision(pw.Precision, pw.TP+pw.FP), pw.Recall, pw.F1, pw.F1CI[0], pw.F1CI[1],
			b.Precision, b.Recall, b.F1, b.F1CI[0], b.F1CI[1], r.Clusters, nm)
	}

	p("\n### kgforge against the simple rules (pairs F1 / B³ F1)\n\n")
	p("kgforge as a build runs it (%s) has no parameter fitted on data. Each column is compared with it; ", cfgDefault)
	p("\"best fixed rule\" is the best of exact, fuzzy-0.8 and cosine-0.8 on the set, pairs F1 and B³ F1 each taken from whichever of the three is best on it.\n\n")
	p("| set | kgforge | simple rule picked on the other sets | Δ pairs F1 | Δ B³ F1 | best fixed rule | Δ pairs F1 | Δ B³ F1 | kgforge rules: score, refitted without the set | kgforge rules: score, committed model |\n")
	p("|---|---|---|---|---|---|---|---|---|---|\n")
	find := func(set, config string) (oosRow, bool) {
		for _, r := range rep.Results {
			if r.Set == set && r.Config == config {
				return r, true
			}
		}
		return oosRow{}, false
	}
	for _, s := range rep.Sets {
		def, ok0 := find(s.Name, cfgDefault)
		simple, ok1 := find(s.Name, cfgPickedSimple)
		loso, ok2 := find(s.Name, cfgLOSO)
		com, ok3 := find(s.Name, cfgCommitted)
		if !ok0 || !ok1 || !ok2 || !ok3 {
			continue
		}
		var bestPairs, bestB3 oosRow
		for _, name := range fixedAnchors {
			if r, ok := find(s.Name, name); ok {
				if bestPairs.Config == "" || r.Pairwise.F1 > bestPairs.Pairwise.F1 {
					bestPairs = r
				}
				if bestB3.Config == "" || r.B3.F1 > bestB3.B3.F1 {
					bestB3 = r
				}
			}
		}
		fixed := fmt.Sprintf("%s %.3f / %s %.3f", bestPairs.Config, bestPairs.Pairwise.F1, bestB3.Config, bestB3.B3.F1)
		comCell := fmt.Sprintf("%.3f / %.3f", com.Pairwise.F1, com.B3.F1)
		if com.Fit != outOfSample {
			comCell += " (in-sample)"
		}
		p("| %s | %.3f / %.3f | %s: %.3f / %.3f | %+.3f | %+.3f | %s | %+.3f | %+.3f | %.3f / %.3f | %s |\n", s.Name,
			def.Pairwise.F1, def.B3.F1,
			simple.Rule, simple.Pairwise.F1, simple.B3.F1, def.Pairwise.F1-simple.Pairwise.F1, def.B3.F1-simple.B3.F1,
			fixed, def.Pairwise.F1-bestPairs.Pairwise.F1, def.B3.F1-bestB3.B3.F1,
			loso.Pairwise.F1, loso.B3.F1, comCell)
	}

	p("\n### The simple rules at every threshold (pairs F1 / B³ F1; no parameter fitted, choosing one on a set is)\n\n")
	rules := simpleRules()
	p("| set | %s |\n|---|%s\n", strings.Join(rules, " | "), strings.Repeat("---|", len(rules)))
	for i := 0; i < len(rep.Grid2); i += len(rules) {
		cells := make([]string, 0, len(rules))
		for _, r := range rep.Grid2[i : i+len(rules)] {
			cells = append(cells, fmt.Sprintf("%.3f / %.3f", r.Pairwise.F1, r.B3.F1))
		}
		p("| %s | %s |\n", rep.Grid2[i].Set, strings.Join(cells, " | "))
	}

	p("\n### Per kind of name (pairs F1 / B³ F1 on the pairs within the kind)\n\n")
	p("| kind | set | simple rule picked on the other sets | simple rule picked on the same kind in the other sets | kgforge | kgforge-cosine | kgforge rules: score, refitted without the set | kgforge rules: score, committed model | best simple rule on this kind (in-sample) |\n|---|---|---|---|---|---|---|---|---|\n")
	const perKind = 7
	for i := 0; i+perKind <= len(rep.Kinds); i += perKind {
		k := rep.Kinds[i : i+perKind]
		cell := func(r oosRow) string { return fmt.Sprintf("%.3f / %.3f", r.Pairwise.F1, r.B3.F1) }
		same := "— (no other set has this kind)"
		if k[1].Fit == outOfSample {
			same = k[1].Rule + ": " + cell(k[1])
		}
		p("| %s | %s | %s: %s | %s | %s | %s | %s | %s (%s) | %s: %s |\n", k[0].Kind, k[0].Set, k[0].Rule, cell(k[0]), same, cell(k[2]), cell(k[3]),
			cell(k[4]), cell(k[5]), k[5].Fit, k[6].Rule, cell(k[6]))
	}

	p("\n### Calibration of the score, on the candidate pairs it decides\n\n")
	p("Expected calibration error (%d equal bins; pairs the score decides, rules such as equal names excluded):\n\n", reliabilityBins)
	p("| set | pairs | true pairs | refitted without the set (out-of-sample) | committed model | fitted on every set |\n|---|---|---|---|---|---|\n")
	for i := 0; i+3 <= len(rep.Calibration); i += 3 {
		c := rep.Calibration[i : i+3]
		p("| %s | %d | %d | %s | %s (%s) | %s (%s) |\n", c[0].Set, c[0].Pairs, c[0].TruePairs,
			eceCell(c[0].Calibration), eceCell(c[1].Calibration), c[1].Fit, eceCell(c[2].Calibration), c[2].Fit)
	}
	p("\nReliability, pooled over the sets (pairs, mean predicted → observed share of true pairs):\n\n")
	cols := []struct{ key, title string }{
		{"loso", "refitted without the set (out-of-sample)"},
		{"committed-out", "committed model, out-of-sample"},
		{"committed-in", "committed model, in-sample"},
		{"all-in", "fitted on every set, in-sample"},
	}
	p("| predicted |")
	for _, c := range cols {
		p(" %s |", c.title)
	}
	p("\n|---|%s\n", strings.Repeat("---|", len(cols)))
	for b := range reliabilityBins {
		p("| %.1f–%.1f |", float64(b)/reliabilityBins, float64(b+1)/reliabilityBins)
		for _, c := range cols {
			p(" %s |", binCell(rep.Reliability[c.key].Bins[b]))
		}
		p("\n")
	}
	p("| ≥ %.2f |", highConfidence)
	for _, c := range cols {
		p(" %s |", binCell(rep.Reliability[c.key].High))
	}
	p("\n| ECE (max gap) |")
	for _, c := range cols {
		r := rep.Reliability[c.key]
		p(" %.3f (%.3f) |", r.ECE, r.MaxGap)
	}
	p("\n| Brier; pairs |")
	for _, c := range cols {
		r := rep.Reliability[c.key]
		p(" %.3f; %d |", r.Brier, r.Pairs)
	}
	p("\n\nseed %d; bootstrap 1,000 resamples of gold entities (documents for redocred)", o.seed)
	if e := rep.Embedding; e != nil {
		p("; embeddings: %s through %s (%d dims), %d distinct texts, %d from the cache, %.1fs", e.Model, e.Embedder, e.Dims, e.Texts, e.Cached, e.Seconds)
	}
	p("\n")
}

func configName(r oosRow) string {
	if r.Rule != "" {
		return r.Config + " (" + r.Rule + ")"
	}
	return r.Config
}

func eceCell(c Calibration) string {
	if c.Pairs == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", c.ECE)
}

func binCell(b Bin) string {
	if b.Pairs == 0 {
		return "0"
	}
	return fmt.Sprintf("%d: %.2f → %.2f", b.Pairs, b.Predicted, b.Observed)
}
