package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"kgforge/bench/quality"
)

// trainingSplit is training/split.json: what kgforge-extract never
// trained on.
type trainingSplit struct {
	TekGenHeldOut []string `json:"tekgen_heldout_ontologies"`
	ReDocRED      struct {
		Mod int `json:"mod"`
		Rem int `json:"rem"`
	} `json:"redocred"`
}

// heldOut keeps the items the split holds out of training: for text2kg
// the items of the held-out ontologies; for redocred the documents whose
// index i (redocred_dev_i) has i % mod == rem; webnlg is never trained on
// and is kept whole.
func heldOut(items []quality.Item, set, path string) ([]quality.Item, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read split: %w", err)
	}
	var sp trainingSplit
	if err := json.Unmarshal(raw, &sp); err != nil {
		return nil, fmt.Errorf("split %s: %w", path, err)
	}
	if sp.ReDocRED.Mod <= 0 || len(sp.TekGenHeldOut) == 0 {
		return nil, fmt.Errorf("split %s: needs redocred.mod > 0 and tekgen_heldout_ontologies", path)
	}
	var out []quality.Item
	for _, it := range items {
		switch set {
		case "text2kg":
			if slices.Contains(sp.TekGenHeldOut, it.Ontology) {
				out = append(out, it)
			}
		case "redocred":
			i, err := strconv.Atoi(strings.TrimPrefix(it.ID, "redocred_dev_"))
			if err != nil {
				return nil, fmt.Errorf("redocred item %s: no document index", it.ID)
			}
			if i%sp.ReDocRED.Mod == sp.ReDocRED.Rem {
				out = append(out, it)
			}
		default:
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("split %s holds out none of set %s", path, set)
	}
	return out, nil
}
