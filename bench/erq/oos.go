package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"kgforge/consolidate/resolve"
)

// The out-of-sample evaluation, erq's default report. Every configuration
// whose parameters are fitted on data is measured on data it was not
// fitted on:
//
//   - leave one set out: for each set, the calibrated score is refitted
//     (fitModel, the procedure of -fit) on the candidate pairs of the other
//     sets, and a threshold or simple rule is picked on the other sets,
//     then both are measured on the set held out;
//   - the committed model (consolidate/resolve/model.json) is measured on
//     the dev records outside the sample it was fitted on (its fit record
//     names the sets, -n and -seed), and on the sets it never saw.
//
// In-sample figures (the model fitted on every set, the rule that is best
// on the set itself, the committed model on its own fit sample) are
// printed beside them and labelled so.

// The configurations of kgforge's resolver in the report. cfgDefault is
// what a build runs (resolve.Config{}: each kind of name by its rule set,
// no score); it has no parameter fitted on data, so it is labelled fixed,
// like the simple rules. The score's three configurations run every kind
// under rules: score, the only rule set that uses the model.
const (
	cfgDefault       = "kgforge (default: rules by kind of name)"
	cfgKgforgeCosine = "kgforge-cosine"
	cfgCommitted     = "kgforge rules: score, committed model"
	cfgLOSO          = "kgforge rules: score, refitted without the set"
	cfgAllSets       = "kgforge rules: score, fitted on every set"
	cfgPickedSimple  = "simple rule picked on the other sets"
	cfgPickedKind    = "simple rule picked on the same kind in the other sets"
)

// fixedAnchors are the simple rules at their default thresholds, which
// need nothing picked: kgforge's default is compared with the best of them
// on each set as well as with the rule picked on the other sets.
var fixedAnchors = [3]string{"exact", "fuzzy-0.8", "cosine-0.8"}

// The labels of a figure's relation to the data it was fitted on.
const (
	outOfSample = "out-of-sample"
	inSample    = "in-sample"
	fixedRule   = "fixed"
)

// split is one fold of leave-one-set-out: the set held out and the sets
// fitted on.
type split struct {
	heldOut string
	fit     []string
}

// leaveOneOut returns one split per set: each set held out once, fitted on
// all the others, in the order given.
func leaveOneOut(sets []string) []split {
	out := make([]split, 0, len(sets))
	for _, h := range sets {
		var fit []string
		for _, s := range sets {
			if s != h {
				fit = append(fit, s)
			}
		}
		out = append(out, split{heldOut: h, fit: fit})
	}
	return out
}

// samplesOf returns the fit samples of the sets named, in that order.
func samplesOf(byGroup map[string][]fitSample, sets []string) []fitSample {
	var out []fitSample
	for _, s := range sets {
		out = append(out, byGroup[s]...)
	}
	return out
}

// foldSamples returns, for each set held out, the samples its fold fits
// on: those of every other set.
func foldSamples(byGroup map[string][]fitSample, sets []string) map[string][]fitSample {
	out := map[string][]fitSample{}
	for _, sp := range leaveOneOut(sets) {
		out[sp.heldOut] = samplesOf(byGroup, sp.fit)
	}
	return out
}

// evalSet is a set as the out-of-sample evaluation runs it.
type evalSet struct {
	group      string // the set whose data it is: what leave-one-set-out holds out
	outsideFit bool   // the records outside the committed model's fit sample
	labels     map[string][][]int
	seconds    map[string]float64
	cands      [][][2]int  // kgforge's candidate pairs of each problem
	samples    []fitSample // the candidate pairs the score decides, gold-labelled
}

// committedModel returns the model the report calls committed: the one in
// the file -score-model names, else consolidate/resolve/model.json.
func committedModel(o options) (resolve.Model, error) {
	if o.scoreModel == "" {
		return resolve.DefaultModel(), nil
	}
	b, err := os.ReadFile(o.scoreModel)
	if err != nil {
		return resolve.Model{}, fmt.Errorf("score model: %w", err)
	}
	m, err := resolve.ParseModel(b)
	if err != nil {
		return resolve.Model{}, fmt.Errorf("score model %s: %w", o.scoreModel, err)
	}
	return m, nil
}

// committedFit returns how a model was fitted, from its fit record: its
// sets and the -n and -seed of their samples.
func committedFit(m resolve.Model) (sets []string, n int, seed uint64, err error) {
	var info fitInfo
	if err := json.Unmarshal(m.Fit, &info); err != nil {
		return nil, 0, 0, fmt.Errorf("the score model's fit record (what -fit writes): %w", err)
	}
	if _, err := fmt.Sscanf(info.Sample, "-n %d -seed %d", &n, &seed); err != nil {
		return nil, 0, 0, fmt.Errorf("the score model's fit sample %q: %w", info.Sample, err)
	}
	return info.Sets, n, seed, nil
}

// outsideSample returns the records of the gold entities that
// sampleEntities(p, fitN, fitSeed) leaves out, of which n entities drawn
// with seed (all when n ≤ 0).
func outsideSample(p Problem, fitN int, fitSeed uint64, n int, seed uint64) Problem {
	in := map[string]bool{}
	for _, r := range sampleEntities(p, fitN, fitSeed).Records {
		in[r.ID] = true
	}
	out := Problem{ID: p.ID + "/outside-fit"}
	kept := map[int]bool{}
	for i, r := range p.Records {
		if !in[r.ID] {
			out.Records = append(out.Records, r)
			out.Gold = append(out.Gold, p.Gold[i])
			kept[p.Gold[i]] = true
		}
	}
	for _, nm := range p.NearMiss {
		if kept[nm[0]] && kept[nm[1]] {
			out.NearMiss = append(out.NearMiss, nm)
		}
	}
	return sampleEntities(out, n, seed)
}

// kindOf is the kind of name a record of a set is: what decides which rule
// suits it. Re-DocRED's entities go by their type.
func kindOf(group string, r Record) string {
	switch group {
	case "patstat":
		return "organisation"
	case "abt-buy":
		return "product"
	case "dblp-acm":
		return "title"
	case "synthetic":
		return "synthetic"
	}
	switch r.Type {
	case "organization":
		return "organisation"
	case "":
		return "unknown"
	}
	return r.Type
}

// kindsOf returns the kinds of name of a set's records, in report order.
func kindsOf(group string, d Dataset) []string {
	var kinds []string
	for _, p := range d.Problems {
		for _, r := range p.Records {
			if k := kindOf(group, r); !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Or(cmp.Compare(kindRank(a), kindRank(b)), cmp.Compare(a, b)) })
	return kinds
}

// kindOrder sorts kinds in the order of the report.
var kindOrder = []string{"organisation", "person", "product", "title", "location", "time", "number", "miscellaneous", "synthetic"}

func kindRank(k string) int {
	if i := slices.Index(kindOrder, k); i >= 0 {
		return i
	}
	return len(kindOrder)
}

// pick returns the rule of rules with the highest mean pairwise F1 over
// the sets named (each set weighing the same), ties broken by mean B³ F1
// and then by the order of rules; score gives a rule's scores on a set.
func pick(rules, sets []string, score func(set, rule string) Scores) (best string, meanF1 float64) {
	bestB3 := -1.0
	meanF1 = -1
	for _, r := range rules {
		var f, b float64
		for _, s := range sets {
			sc := score(s, r)
			f += sc.Pairwise.F1
			b += sc.B3.F1
		}
		f /= float64(max(len(sets), 1))
		b /= float64(max(len(sets), 1))
		if f > meanF1 || (f == meanF1 && b > bestB3) {
			best, meanF1, bestB3 = r, f, b
		}
	}
	return best, meanF1
}

// scoreOf scores a set's labels on the records keep accepts (all when keep
// is nil), pairs only within a problem, and counts the planted near-miss
// pairs merged (on the whole set only) and the clusters.
func scoreOf(d Dataset, labels [][]int, keep func(Record) bool, seed uint64) (Scores, int, int) {
	var units []unit
	nearMiss, clusters := 0, 0
	for pi, p := range d.Problems {
		var pred, gold []int
		for i, r := range p.Records {
			if keep == nil || keep(r) {
				pred = append(pred, labels[pi][i])
				gold = append(gold, p.Gold[i])
			}
		}
		if len(pred) == 0 {
			continue
		}
		units = append(units, unitsOf(pred, gold, d.PerDocument())...)
		distinct := map[int]bool{}
		for _, l := range pred {
			distinct[l] = true
		}
		clusters += len(distinct)
		if keep == nil {
			nearMiss += nearMissMerged(labels[pi], p.Gold, p.NearMiss)
		}
	}
	return score(units, seed), nearMiss, clusters
}

// oosRow is one configuration on one set (or one kind of name in it).
type oosRow struct {
	Set    string `json:"set"`
	Kind   string `json:"kind,omitempty"`
	Config string `json:"config"`
	Rule   string `json:"rule,omitempty"` // the rule a pick chose
	Fit    string `json:"fit"`            // out-of-sample, in-sample or fixed
	Scores
	Clusters       int     `json:"predicted_clusters"`
	NearMissMerged int     `json:"near_miss_merged"`
	Seconds        float64 `json:"seconds,omitempty"`
}

// pickRow is what a fold picked without the set held out.
type pickRow struct {
	HeldOut    string   `json:"held_out"`
	FittedOn   []string `json:"fitted_on"`
	Simple     string   `json:"simple_rule"`
	SimpleF1   float64  `json:"simple_rule_mean_f1"` // on the sets fitted on
	Cosine     string   `json:"cosine"`
	Fuzzy      string   `json:"fuzzy"`
	Merge      float64  `json:"merge_band"`
	Uncertain  float64  `json:"uncertain_band"`
	FitPairs   int      `json:"fit_pairs"`
	BestSimple string   `json:"best_simple_on_the_set_in_sample"`
}

// recallRow is kgforge's candidate recall on a set or a kind of name in it.
type recallRow struct {
	Set     string `json:"set"`
	Kind    string `json:"kind,omitempty"`
	Records int    `json:"records"`
	candidateRecall
}

// calibRow is the calibration of one model on one set's scored pairs.
type calibRow struct {
	Set   string `json:"set"`
	Model string `json:"model"`
	Fit   string `json:"fit"`
	Calibration
}

// oosReport is everything the out-of-sample evaluation measured.
type oosReport struct {
	Date        string                 `json:"date"`
	Seed        uint64                 `json:"seed"`
	N           int                    `json:"n"`
	Docs        int                    `json:"docs"`
	Grid        []float64              `json:"grid"`
	Committed   string                 `json:"committed_fit_sample"`
	Embedding   *embedStats            `json:"embedding"`
	Sets        []setInfo              `json:"sets"`
	Recall      []recallRow            `json:"candidate_recall"`
	Picks       []pickRow              `json:"picks"`
	Results     []oosRow               `json:"results"`
	Grid2       []oosRow               `json:"simple_rules"`
	Kinds       []oosRow               `json:"kinds"`
	Calibration []calibRow             `json:"calibration"`
	Reliability map[string]Calibration `json:"reliability"` // pooled: "loso" (out-of-sample), "committed-out", "committed-in", "all-in"
}

// runOutOfSample runs the out-of-sample evaluation and prints its report.
func runOutOfSample(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if len(o.sets) < 2 {
		return errors.New("the out-of-sample report holds one set out of several: give -sets at least two sets (or -report table)")
	}
	com, err := committedModel(o)
	if err != nil {
		return err
	}
	fitSets, fitN, fitSeed, err := committedFit(com)
	if err != nil {
		return err
	}
	var sets []Dataset
	var ev []*evalSet
	for _, name := range o.sets {
		d, err := loadSet(o.data, name, o)
		if err != nil {
			return err
		}
		sets = append(sets, d)
		ev = append(ev, &evalSet{group: name})
	}
	for _, name := range o.sets {
		if !slices.Contains(fitSets, name) || name == "synthetic" || name == "redocred" {
			continue
		}
		whole, err := loadWhole(o.data, name, o)
		if err != nil {
			return err
		}
		p := outsideSample(whole.Problems[0], fitN, fitSeed, o.n, o.seed)
		if len(p.Records) == 0 {
			note(stderr, "%s: no record outside the committed model's fit sample (-n %d -seed %d takes it all)", name, fitN, fitSeed)
			continue
		}
		d := Dataset{Name: name + "/outside-fit", Problems: []Problem{p}}
		ents, _ := d.goldStats()
		d.Sample = fmt.Sprintf("%d gold entities outside the fit sample (-n %d -seed %d), seed %d", ents, fitN, fitSeed, o.seed)
		sets = append(sets, d)
		ev = append(ev, &evalSet{group: name, outsideFit: true})
	}
	emb, err := embed(ctx, o, sets, stderr)
	if err != nil {
		return err
	}
	rep := oosReport{
		Date: time.Now().UTC().Format(time.DateOnly), Seed: o.seed, N: o.n, Docs: o.docs, Grid: ruleGrid, Embedding: &emb,
		Committed:   fmt.Sprintf("%s, fitted on %s with -n %d -seed %d", cmp.Or(o.scoreModel, "consolidate/resolve/model.json"), strings.Join(fitSets, ", "), fitN, fitSeed),
		Reliability: map[string]Calibration{},
	}
	for k, d := range sets {
		e := ev[k]
		e.labels, e.seconds = map[string][][]int{}, map[string]float64{}
		start := time.Now()
		for _, p := range d.Problems {
			simple, err := simpleLabels(ctx, p.Records, true)
			if err != nil {
				return fmt.Errorf("simple rules on %s %s: %w", d.Name, p.ID, err)
			}
			for name, l := range simple {
				e.labels[name] = append(e.labels[name], l)
			}
			c, err := candidatePairs(ctx, p.Records)
			if err != nil {
				return fmt.Errorf("%s %s: %w", d.Name, p.ID, err)
			}
			e.cands = append(e.cands, c)
		}
		note(stderr, "%s: simple rules and candidates (%.1fs)", d.Name, time.Since(start).Seconds())
		for _, m := range []Method{
			kgforgeResolver(cfgDefault, resolve.Config{}),
			kgforgeResolver(cfgKgforgeCosine, resolve.Config{Rules: resolve.RulesCosine}),
			kgforgeResolver(cfgCommitted, resolve.Config{Rules: resolve.RulesScore, Model: &com}),
		} {
			if err := e.resolve(ctx, d, m); err != nil {
				return err
			}
		}
		if e.samples, err = collectFitSamples(ctx, []Dataset{d}); err != nil {
			return err
		}
	}
	// The folds: a model and picks without each set.
	byGroup := map[string][]fitSample{}
	for _, e := range ev {
		if !e.outsideFit {
			byGroup[e.group] = e.samples
		}
	}
	models := map[string]resolve.Model{}
	folds := foldSamples(byGroup, o.sets)
	for _, held := range o.sets {
		m, err := fitModel(folds[held])
		if err != nil {
			return fmt.Errorf("fit without %s: %w", held, err)
		}
		models[held] = m
	}
	all, err := fitModel(samplesOf(byGroup, o.sets))
	if err != nil {
		return fmt.Errorf("fit on every set: %w", err)
	}
	for k, d := range sets {
		e := ev[k]
		loso := models[e.group]
		for _, m := range []Method{
			kgforgeResolver(cfgLOSO, resolve.Config{Rules: resolve.RulesScore, Model: &loso}),
			kgforgeResolver(cfgAllSets, resolve.Config{Rules: resolve.RulesScore, Model: &all}),
		} {
			if err := e.resolve(ctx, d, m); err != nil {
				return err
			}
		}
	}
	// Scores of every configuration on every whole set.
	whole := map[string]map[string]Scores{} // set name → config → scores
	for k, d := range sets {
		whole[d.Name] = map[string]Scores{}
		for cfg, l := range ev[k].labels {
			s, _, _ := scoreOf(d, l, nil, o.seed)
			whole[d.Name][cfg] = s
		}
	}
	mainOf := map[string]string{} // group → the name of its main set
	for k, d := range sets {
		if !ev[k].outsideFit {
			mainOf[ev[k].group] = d.Name
		}
	}
	scoreOn := func(set, rule string) Scores { return whole[mainOf[set]][rule] }
	var cosines, fuzzies []string
	for _, t := range ruleGrid {
		cosines, fuzzies = append(cosines, cosineName(t)), append(fuzzies, fuzzyName(t))
	}
	picked := map[string]pickRow{}
	for _, sp := range leaveOneOut(o.sets) {
		m := models[sp.heldOut]
		pr := pickRow{HeldOut: sp.heldOut, FittedOn: sp.fit, Merge: m.Merge, Uncertain: m.Uncertain, FitPairs: len(folds[sp.heldOut])}
		pr.Simple, pr.SimpleF1 = pick(simpleRules(), sp.fit, scoreOn)
		pr.Cosine, _ = pick(cosines, sp.fit, scoreOn)
		pr.Fuzzy, _ = pick(fuzzies, sp.fit, scoreOn)
		pr.BestSimple, _ = pick(simpleRules(), []string{sp.heldOut}, scoreOn)
		picked[sp.heldOut] = pr
		rep.Picks = append(rep.Picks, pr)
	}
	// Every simple rule on every kind of name of every set with true pairs
	// of that kind: "set\x00kind" → rule → scores.
	byKind := map[string]map[string]Scores{}
	for k, d := range sets {
		e := ev[k]
		for _, kind := range kindsOf(e.group, d) {
			keep := func(r Record) bool { return kindOf(e.group, r) == kind }
			if e.recall(d, kind, keep).TruePairs == 0 {
				continue
			}
			m := map[string]Scores{}
			for _, rule := range simpleRules() {
				m[rule], _, _ = scoreOf(d, e.labels[rule], keep, o.seed)
			}
			byKind[d.Name+"\x00"+kind] = m
		}
	}
	for k, d := range sets {
		e := ev[k]
		pr := picked[e.group]
		info := setInfo{Name: d.Name, Sample: d.Sample, Problems: len(d.Problems), Records: d.Records()}
		info.Entities, info.GoldPairs = d.goldStats()
		for _, p := range d.Problems {
			info.NearMissPairs += len(p.NearMiss)
		}
		rep.Sets = append(rep.Sets, info)
		rep.Recall = append(rep.Recall, e.recall(d, "", nil))
		committedFitLabel := outOfSample
		if slices.Contains(fitSets, e.group) && !e.outsideFit {
			committedFitLabel = inSample
		}
		allLabel := inSample
		if e.outsideFit {
			allLabel = outOfSample // fitted on the set's sample, not on these records
		}
		bestHere, _ := pick(simpleRules(), []string{d.Name}, func(_, r string) Scores { return whole[d.Name][r] })
		rows := []struct{ config, rule, fit string }{
			{fixedAnchors[0], "", fixedRule},
			{fixedAnchors[1], "", fixedRule},
			{fixedAnchors[2], "", fixedRule},
			{cfgPickedSimple, pr.Simple, outOfSample},
			{"cosine threshold picked on the other sets", pr.Cosine, outOfSample},
			{"fuzzy threshold picked on the other sets", pr.Fuzzy, outOfSample},
			{cfgDefault, "", fixedRule},
			{cfgKgforgeCosine, "", fixedRule},
			{cfgLOSO, "", outOfSample},
			{cfgCommitted, "", committedFitLabel},
			{"simple rule best on this set", bestHere, inSample},
			{cfgAllSets, "", allLabel},
		}
		for _, r := range rows {
			cfg := r.config
			if r.rule != "" {
				cfg = r.rule
			}
			s, nm, cl := scoreOf(d, e.labels[cfg], nil, o.seed)
			rep.Results = append(rep.Results, oosRow{
				Set: d.Name, Config: r.config, Rule: r.rule, Fit: r.fit, Scores: s,
				Clusters: cl, NearMissMerged: nm, Seconds: e.seconds[cfg],
			})
		}
		for _, rule := range simpleRules() {
			s, nm, cl := scoreOf(d, e.labels[rule], nil, o.seed)
			rep.Grid2 = append(rep.Grid2, oosRow{Set: d.Name, Config: rule, Fit: fixedRule, Scores: s, Clusters: cl, NearMissMerged: nm})
		}
		for _, kind := range kindsOf(e.group, d) {
			keep := func(r Record) bool { return kindOf(e.group, r) == kind }
			rr := e.recall(d, kind, keep)
			if rr.TruePairs == 0 {
				continue // nothing to merge: F1 has no true pair to find
			}
			if len(kindsOf(e.group, d)) > 1 {
				rep.Recall = append(rep.Recall, rr)
			}
			// The same kind in the other sets, as a pick's "sets".
			var others []string
			for k2, d2 := range sets {
				if key := d2.Name + "\x00" + kind; ev[k2].group != e.group && !ev[k2].outsideFit && byKind[key] != nil {
					others = append(others, key)
				}
			}
			sameKind := struct{ config, rule, fit string }{cfgPickedKind, "", "none"}
			if len(others) > 0 {
				sameKind.rule, _ = pick(simpleRules(), others, func(key, r string) Scores { return byKind[key][r] })
				sameKind.fit = outOfSample
			}
			best, _ := pick(simpleRules(), []string{d.Name + "\x00" + kind}, func(key, r string) Scores { return byKind[key][r] })
			for _, r := range []struct{ config, rule, fit string }{
				{cfgPickedSimple, pr.Simple, outOfSample},
				sameKind,
				{cfgDefault, "", fixedRule},
				{cfgKgforgeCosine, "", fixedRule},
				{cfgLOSO, "", outOfSample},
				{cfgCommitted, "", committedFitLabel},
				{"simple rule best on this kind", best, inSample},
			} {
				if r.fit == "none" {
					rep.Kinds = append(rep.Kinds, oosRow{Set: d.Name, Kind: kind, Config: r.config, Fit: r.fit})
					continue
				}
				cfg := r.config
				if r.rule != "" {
					cfg = r.rule
				}
				s, _, cl := scoreOf(d, e.labels[cfg], keep, o.seed)
				rep.Kinds = append(rep.Kinds, oosRow{Set: d.Name, Kind: kind, Config: r.config, Rule: r.rule, Fit: r.fit, Scores: s, Clusters: cl})
			}
		}
	}
	// Calibration of the score on the pairs it decides.
	var losoAll, comOut, comIn, allIn []scoredPair
	for k, d := range sets {
		e := ev[k]
		loso := models[e.group]
		l, c, a := scorePairs(loso, e.samples), scorePairs(com, e.samples), scorePairs(all, e.samples)
		losoAll = append(losoAll, l...)
		committedFitLabel := outOfSample
		if slices.Contains(fitSets, e.group) && !e.outsideFit {
			committedFitLabel = inSample
			comIn = append(comIn, c...)
		} else {
			comOut = append(comOut, c...)
		}
		allLabel := inSample
		if e.outsideFit {
			allLabel = outOfSample // fitted on the set's sample, not on these records
		} else {
			allIn = append(allIn, a...)
		}
		rep.Calibration = append(rep.Calibration,
			calibRow{Set: d.Name, Model: cfgLOSO, Fit: outOfSample, Calibration: calibrate(l)},
			calibRow{Set: d.Name, Model: cfgCommitted, Fit: committedFitLabel, Calibration: calibrate(c)},
			calibRow{Set: d.Name, Model: cfgAllSets, Fit: allLabel, Calibration: calibrate(a)})
	}
	rep.Reliability["loso"] = calibrate(losoAll)
	rep.Reliability["committed-out"] = calibrate(comOut)
	rep.Reliability["committed-in"] = calibrate(comIn)
	rep.Reliability["all-in"] = calibrate(allIn)
	printOutOfSample(stdout, o, rep)
	if o.out != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.out, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	return nil
}

// resolve runs a method on every problem of the set and keeps its labels.
func (e *evalSet) resolve(ctx context.Context, d Dataset, m Method) error {
	start := time.Now()
	for _, p := range d.Problems {
		l, err := m.Resolve(ctx, p.Records)
		if err != nil {
			return fmt.Errorf("%s on %s %s: %w", m.Name, d.Name, p.ID, err)
		}
		e.labels[m.Name] = append(e.labels[m.Name], l)
	}
	e.seconds[m.Name] = time.Since(start).Seconds()
	return nil
}

// recall sums the candidate recall of the set's problems over the records
// keep accepts (all when keep is nil).
func (e *evalSet) recall(d Dataset, kind string, keep func(Record) bool) recallRow {
	row := recallRow{Set: d.Name, Kind: kind}
	for pi, p := range d.Problems {
		var in func(int) bool
		if keep != nil {
			in = func(i int) bool { return keep(p.Records[i]) }
		}
		for i := range p.Records {
			if in == nil || in(i) {
				row.Records++
			}
		}
		row.add(recallOf(e.cands[pi], p.Gold, in))
	}
	return row
}

// scorePairs scores the fit samples with a model.
func scorePairs(m resolve.Model, samples []fitSample) []scoredPair {
	out := make([]scoredPair, len(samples))
	for k, s := range samples {
		out[k] = scoredPair{p: m.Score(s.values), same: s.same}
	}
	return out
}
