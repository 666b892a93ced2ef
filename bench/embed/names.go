package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// nameSource is one column of a benchmark file that holds names: a company
// or inventor (PATSTAT), a product title (Abt-Buy), a paper title, author or
// venue (DBLP-ACM). split, when set, cuts one field into several names.
type nameSource struct {
	file   string
	comma  rune
	column string
	split  string
}

var nameSources = []nameSource{
	{"patstat/patstat_dev.csv", ',', "name", ""},
	{"patstat/patstat_dev.csv", ',', "coauthors", "**"},
	{"abt-buy/abt.csv", '|', "name", ""},
	{"abt-buy/buy.csv", '|', "name", ""},
	{"dblp-acm/dblp.csv", '%', "title", ""},
	{"dblp-acm/dblp.csv", '%', "authors", ","},
	{"dblp-acm/dblp.csv", '%', "venue", ""},
	{"dblp-acm/acm.csv", '%', "title", ""},
	{"dblp-acm/acm.csv", '%', "authors", ","},
	{"dblp-acm/acm.csv", '%', "venue", ""},
}

// loadNames returns the distinct names (white space folded) of every
// source under dir, in a fixed shuffled order, at most n of them (n ≤ 0:
// all).
func loadNames(dir string, n int, seed uint64) ([]string, error) {
	seen := map[string]bool{}
	var names []string
	for _, s := range nameSources {
		vals, err := readColumn(filepath.Join(dir, s.file), s.comma, s.column)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			parts := []string{v}
			if s.split != "" {
				parts = strings.Split(v, s.split)
			}
			for _, p := range parts {
				p = strings.Join(strings.Fields(p), " ")
				if p != "" && !seen[p] {
					seen[p] = true
					names = append(names, p)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	if n > 0 && n < len(names) {
		names = names[:n]
	}
	return names, nil
}

// readColumn returns one column of a delimited file with a header row.
func readColumn(path string, comma rune, column string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read names: %w", err)
	}
	defer func() { _ = f.Close() }()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = comma, true, -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("read names from %s: header: %w", path, err)
	}
	col := -1
	for i, h := range head {
		if h == column {
			col = i
		}
	}
	if col < 0 {
		return nil, fmt.Errorf("read names from %s: no column %q in %v", path, column, head)
	}
	var out []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read names from %s: %w", path, err)
		}
		if col < len(rec) {
			out = append(out, rec[col])
		}
	}
}
