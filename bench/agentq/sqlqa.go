package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"

	"kgforge/agent/eval"
	"kgforge/bench/internal/sqlqa"
	"kgforge/llm"
)

// sampleSpider samples -n questions of Spider's dev set.
func sampleSpider(ctx context.Context, o options, client *llm.Client) (*set, error) {
	s, err := sqlqa.Spider(o.data)
	if err != nil {
		return nil, err
	}
	return sampleSQL(ctx, o, client, s)
}

// sampleKaggle samples -n questions of KaggleDBQA; each database's
// documentation becomes a document of its bundle.
func sampleKaggle(ctx context.Context, o options, client *llm.Client) (*set, error) {
	s, err := sqlqa.Kaggle(o.data)
	if err != nil {
		return nil, err
	}
	return sampleSQL(ctx, o, client, s)
}

// sampleSQL takes questions in a seeded order and keeps those whose gold
// SQL, run over the built bundle, gives a non-empty result of at most ten
// rows that does not cut through a tie (tieProbe); that result is the
// gold answer.
func sampleSQL(ctx context.Context, o options, client *llm.Client, qs *sqlqa.Set) (*set, error) {
	name, ex := qs.Name, qs.Examples
	if o.heldout != "" {
		var err error
		if ex, err = heldOut(o.heldout, qs, o.trained); err != nil {
			return nil, err
		}
	}
	s := &set{name: name, skipped: map[string]int{}}
	rng := rand.New(rand.NewPCG(o.seed, 2)) //nolint:gosec // sampling, not secrets
	gold := map[string]*sqlqa.Gold{}
	defer func() {
		for _, g := range gold {
			_ = g.Close()
		}
	}()
	for _, i := range rng.Perm(len(ex)) {
		if len(s.items) >= o.n {
			break
		}
		e := ex[i]
		src := filepath.Join(o.work, name, e.DB)
		g, ok := gold[e.DB]
		if !ok {
			var err error
			if g, err = sqlqa.OpenGold(ctx, sqlqa.Build{Model: o.model, Extract: o.extract}, client, src, qs.DBFile(e.DB), qs.Docs[e.DB]); err != nil {
				return nil, fmt.Errorf("database %s: %w", e.DB, err)
			}
			gold[e.DB] = g
		}
		q, reason := question(ctx, g, fmt.Sprintf("%s-%s-%d", name, e.DB, i), e)
		if reason != "" {
			s.skipped[reason]++
			continue
		}
		s.items = append(s.items, item{src: src, q: q})
	}
	return s, nil
}

// question runs e's gold SQL and makes the harness question of its
// result, or says why it cannot.
func question(ctx context.Context, g *sqlqa.Gold, id string, e sqlqa.Example) (eval.Question, string) {
	sql := g.Rewrite(e.Query)
	_, rows, truncated, err := g.Query(ctx, sql, 10)
	switch {
	case err != nil:
		return eval.Question{}, "gold SQL fails over the bundle"
	case truncated:
		return eval.Question{}, "gold result over ten rows"
	case len(rows) == 0:
		return eval.Question{}, "gold result empty"
	}
	if probe, keys, n, ok := tieProbe(sql); ok {
		if _, prow, _, err := g.Query(ctx, probe, n+1); err == nil && tiesAtLimit(prow, keys, n) {
			return eval.Question{}, "gold result ties at its LIMIT"
		}
	}
	q := eval.Question{ID: id, Question: e.Question, SQL: sql, Needs: []string{"table"}}
	switch {
	case len(rows) == 1 && len(rows[0]) == 1:
		if n, err := strconv.ParseFloat(rows[0][0], 64); err == nil {
			q.Kind, q.Answer = eval.KindNumber, n
		} else {
			q.Kind, q.Answer = eval.KindText, rows[0][0]
		}
	case len(rows[0]) == 1:
		var items []string
		for _, r := range rows {
			items = append(items, r[0])
		}
		q.Kind, q.Answer = eval.KindList, items
	default:
		q.Kind, q.Answer = eval.KindTable, rows
	}
	if err := q.Prepare(); err != nil {
		return eval.Question{}, "gold result not an answer"
	}
	return q, ""
}

// heldOut keeps the questions of the databases a split file
// (training/agent_split.json) holds out of training for the set.
// With trained, it keeps the other databases instead: those the model
// trained on, where kgforge's repairs are written and checked before the
// held-out figures are measured.
func heldOut(path string, qs *sqlqa.Set, trained bool) ([]sqlqa.Example, error) {
	var sp struct {
		HeldOut map[string][]string `json:"heldout"`
	}
	if err := sqlqa.ReadJSON(path, &sp); err != nil {
		return nil, fmt.Errorf("-heldout: %w", err)
	}
	dbs, ok := sp.HeldOut[qs.Name]
	if !ok {
		return nil, fmt.Errorf("-heldout %s: no held-out databases for set %s", path, qs.Name)
	}
	var out []sqlqa.Example
	for _, e := range qs.Examples {
		if slices.Contains(dbs, e.DB) != trained {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-heldout %s: set %s has no question of %v", path, qs.Name, dbs)
	}
	return out, nil
}
