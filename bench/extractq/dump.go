package main

import (
	"encoding/json"
	"errors"
	"os"
	"sync"

	"kgforge/bench/quality"
	"kgforge/extract"
)

// dumper collects, for -dump, each item's kept triplets (with the gold
// triple each matched) and the triplets grounding dropped, by reason: what
// a person reads to see where facts are lost. A nil dumper does nothing.
type dumper struct {
	mu    sync.Mutex
	rows  []dumpRow
	chunk map[string]int // chunk id → item index
}

type dumpRow struct {
	ID       string           `json:"id"`
	Ontology string           `json:"ontology,omitempty"`
	Text     string           `json:"text"`
	Gold     []quality.Triple `json:"gold"`
	Kept     []dumpKept       `json:"kept"`
	Dropped  []dumpDropped    `json:"dropped"`
}

type dumpKept struct {
	quality.Triple
	Confidence float64 `json:"confidence"`
	Gold       int     `json:"gold"` // index into gold, -1 when it matched none
}

type dumpDropped struct {
	extract.RawTriplet
	Reason string `json:"reason"`
}

func newDumper(items []quality.Item) *dumper {
	d := &dumper{rows: make([]dumpRow, len(items)), chunk: map[string]int{}}
	for i, it := range items {
		d.rows[i] = dumpRow{ID: it.ID, Ontology: it.Ontology, Text: it.Text, Gold: it.Gold}
		d.chunk[chunkOf(it).ID] = i
	}
	return d
}

// onDrop returns the extractor's OnDrop hook, or nil.
func (d *dumper) onDrop() func(string, extract.RawTriplet, string) {
	if d == nil {
		return nil
	}
	return func(chunkID string, t extract.RawTriplet, reason string) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if i, ok := d.chunk[chunkID]; ok {
			d.rows[i].Dropped = append(d.rows[i].Dropped, dumpDropped{t, reason})
		}
	}
}

// kept records item i's kept triplets and which gold triple each matched.
func (d *dumper) kept(i int, pred []quality.Triple, conf []float64, matched []int) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, t := range pred {
		g := -1
		if k < len(matched) {
			g = matched[k]
		}
		d.rows[i].Kept = append(d.rows[i].Kept, dumpKept{t, conf[k], g})
	}
}

func (d *dumper) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range d.rows {
		if err := enc.Encode(r); err != nil {
			return errors.Join(err, f.Close())
		}
	}
	return f.Close()
}
