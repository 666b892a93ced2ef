package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"kgforge/kg"
)

// nearMissTemplate draws two names of one type that look alike and are
// different entities: numbered stations, model numbers, years.
type nearMissTemplate struct {
	typ string
	gen func(r *rand.Rand) (a, b string)
}

func consecutive(format string, lo, hi int) func(r *rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		n := lo + r.IntN(hi-lo+1)
		return fmt.Sprintf(format, n), fmt.Sprintf(format, n+1)
	}
}

func fixed(a, b string) func(*rand.Rand) (string, string) {
	return func(*rand.Rand) (string, string) { return a, b }
}

// nearMissTemplates are drawn several times each with different parameters
// (the fixed ones once: a redraw gives the same names).
var nearMissTemplates = []nearMissTemplate{
	{"facility", consecutive("Station %d", 1, 9)},
	{"facility", consecutive("Line %d", 1, 9)},
	{"facility", func(r *rand.Rand) (string, string) {
		c := 'A' + rune(r.IntN(6))
		return fmt.Sprintf("Plant %c", c), fmt.Sprintf("Plant %c", c+1)
	}},
	{"product", func(r *rand.Rand) (string, string) {
		k := 10 * (1 + r.IntN(9))
		return fmt.Sprintf("Model X%d", k), fmt.Sprintf("Model X%d0", k)
	}},
	{"document", consecutive("%d report", 2015, 2024)},
	{"document", func(r *rand.Rand) (string, string) {
		q, y := 1+r.IntN(3), 2019+r.IntN(6)
		return fmt.Sprintf("Q%d %d results", q, y), fmt.Sprintf("Q%d %d results", q+1, y)
	}},
	{"facility", func(r *rand.Rand) (string, string) {
		n := 2 + r.IntN(8)
		return fmt.Sprintf("Building %d", n), fmt.Sprintf("Building 1%d", n)
	}},
	{"equipment", consecutive("Pump P-%d", 101, 109)},
	{"product", func(r *rand.Rand) (string, string) {
		a, b := 1+r.IntN(5), r.IntN(9)
		return fmt.Sprintf("Version %d.%d", a, b), fmt.Sprintf("Version %d.%d", a, b+1)
	}},
	{"facility", func(r *rand.Rand) (string, string) {
		n := 1 + r.IntN(9)
		return fmt.Sprintf("Unit %dA", n), fmt.Sprintf("Unit %dB", n)
	}},
	{"equipment", func(r *rand.Rand) (string, string) {
		n := 1 + r.IntN(9)
		return fmt.Sprintf("Tank T-%d", n), fmt.Sprintf("Tank T-%d1", n)
	}},
	{"facility", func(r *rand.Rand) (string, string) {
		a := 1 + r.IntN(9)
		b := 1 + (a+r.IntN(8))%9
		return fmt.Sprintf("Gate %d%d", a, b), fmt.Sprintf("Gate %d%d", b, a)
	}},
	{"document", func(r *rand.Rand) (string, string) {
		y, n := 2020+r.IntN(5), 1+r.IntN(98)
		return fmt.Sprintf("Invoice %d-%03d", y, n), fmt.Sprintf("Invoice %d-%03d", y, n+1)
	}},
	{"standard", fixed("ISO 9001", "ISO 14001")},
	{"location", fixed("Austria", "Australia")},
	{"location", fixed("Slovakia", "Slovenia")},
	{"location", fixed("Iran", "Iraq")},
	{"product", fixed("Boeing 737", "Boeing 747")},
	{"product", fixed("Windows 10", "Windows 11")},
	{"person", fixed("John Smith", "Jane Smith")},
	{"person", fixed("Maria Garcia", "Mario Garcia")},
	{"facility", fixed("North Plant", "South Plant")},
	{"organization", fixed("Deutsche Bank", "Deutsche Bahn")},
	{"chemical", fixed("Sodium chloride", "Sodium chlorate")},
}

// duplicates are true duplicates: every name of a group is the same entity
// (case, legal suffixes, accents, acronyms, plurals, punctuation).
var duplicates = []struct {
	typ   string
	names []string
}{
	{"organization", []string{"Acme Inc.", "ACME", "Acme Incorporated"}},
	{"organization", []string{"Société Générale", "Societe Generale", "SOCIETE GENERALE"}},
	{"organization", []string{"IBM", "International Business Machines", "IBM Corp."}},
	{"organization", []string{"Coca-Cola", "Coca Cola", "The Coca-Cola Company"}},
	{"organization", []string{"Nestlé", "Nestle", "Nestlé S.A."}},
	{"organization", []string{"Microsoft Corporation", "Microsoft Corp.", "Microsoft"}},
	{"organization", []string{"3M", "3M Company"}},
	{"organization", []string{"General Electric", "GE"}},
	{"organization", []string{"Müller GmbH", "Mueller GmbH"}},
	{"organization", []string{"Rolls-Royce Holdings plc", "Rolls-Royce"}},
	{"organization", []string{"AT&T", "AT & T"}},
	{"location", []string{"St. Louis", "Saint Louis"}},
	{"location", []string{"United States", "USA", "U.S."}},
	{"location", []string{"Zürich", "Zurich"}},
	{"person", []string{"Dr. Jane Doe", "Jane Doe"}},
	{"concept", []string{"e-mail", "email", "E-Mail"}},
	{"concept", []string{"customer ID", "Customer Id", "customer_id"}},
	{"concept", []string{"safety inspection", "Safety inspections"}},
	{"concept", []string{"supplier", "suppliers"}},
	{"equipment", []string{"pump", "pumps"}},
	{"equipment", []string{"battery", "batteries"}},
	{"equipment", []string{"heat exchanger", "heat exchangers"}},
}

// plantCities name the "<city> plant" duplicates; Porto is always one.
var plantCities = []string{"Porto", "Lyon", "Gdansk", "Turin", "Ghent", "Leeds", "Bilbao", "Tampere"}

// Synthetic generates the synthetic set, the same for the same seed: planted
// near-miss pairs (each side sometimes with a case variant of its own, which
// should merge with it) and groups of true duplicates, all of one problem.
// Near-miss pairs that a method merges are reported apart; the target is
// none.
func Synthetic(seed uint64, drawsPerTemplate int) Dataset {
	r := newRand(seed)
	p := Problem{ID: "synthetic"}
	used := map[string]bool{}
	next := 0
	entity := func(typ string, names []string) int {
		g := next
		next++
		for k, n := range names {
			used[kg.NormalizeName(n)] = true
			p.Records = append(p.Records, Record{ID: fmt.Sprintf("synthetic:e%d:%d", g, k), Name: n, Type: typ, Mentions: 1})
			p.Gold = append(p.Gold, g)
		}
		return g
	}
	withVariant := func(name string) []string {
		var v string
		switch r.IntN(3) {
		case 1:
			v = strings.ToUpper(name)
		case 2:
			v = strings.ToLower(name)
		}
		if v == "" || v == name {
			return []string{name}
		}
		return []string{name, v}
	}
	for _, t := range nearMissTemplates {
		for range drawsPerTemplate {
			var a, b string
			ok := false
			for range 100 {
				if a, b = t.gen(r); !used[kg.NormalizeName(a)] && !used[kg.NormalizeName(b)] {
					ok = true
					break
				}
			}
			if !ok {
				break // a fixed pair, or a template out of fresh parameters
			}
			ga := entity(t.typ, withVariant(a))
			gb := entity(t.typ, withVariant(b))
			p.NearMiss = append(p.NearMiss, [2]int{ga, gb})
		}
	}
	for _, d := range duplicates {
		entity(d.typ, d.names)
	}
	cities := append([]string{plantCities[0]}, plantCities[1:]...)
	r.Shuffle(len(cities)-1, func(i, j int) { cities[i+1], cities[j+1] = cities[j+1], cities[i+1] })
	for _, c := range cities[:4] {
		entity("facility", []string{c + " plant", c + " Plant"})
	}
	return Dataset{Name: "synthetic", Problems: []Problem{p}}
}
