package main

import (
	"bytes"
	"strconv"
	"strings"
)

// errorLog collects, for -errors, the gold pairs each method missed and
// the pairs it joined that are not gold pairs, by name and with the
// cosine of their vectors, so that a reader
// sees which names a rule gets wrong rather than only how many.
type errorLog struct {
	rows [][]string
}

// add lists the errors of one method's labels on one problem, each with
// the reason why gives for the pair (nil: none). A nil log does nothing.
func (e *errorLog) add(set, method string, p Problem, labels []int, why map[[2]string]string) {
	if e == nil {
		return
	}
	for i := range p.Records {
		for j := i + 1; j < len(p.Records); j++ {
			gold, joined := p.Gold[i] == p.Gold[j], labels[i] == labels[j]
			if gold == joined {
				continue
			}
			kind := "missed"
			if joined {
				kind = "wrong"
			}
			a, b := p.Records[i], p.Records[j]
			cos := ""
			if len(a.Vector) > 0 && len(a.Vector) == len(b.Vector) {
				cos = strconv.FormatFloat(float64(dot(normalized(a.Vector), normalized(b.Vector))), 'f', 3, 64)
			}
			key := [2]string{a.ID, b.ID}
			if b.ID < a.ID {
				key = [2]string{b.ID, a.ID}
			}
			e.rows = append(e.rows, []string{set, method, p.ID, kind, cos, a.ID, a.Name, b.ID, b.Name, why[key]})
		}
	}
}

// tsv renders the log with a header; tabs and line breaks inside a name
// become spaces so that every row is one line of ten fields; the cosine of
// the two names' vectors is empty when the run has none, the reason when
// the method gives none for the pair.
func (e *errorLog) tsv() []byte {
	var b bytes.Buffer
	b.WriteString("set\tmethod\tproblem\terror\tcosine\tid a\tname a\tid b\tname b\treason\n")
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for _, r := range e.rows {
		for i, f := range r {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(clean.Replace(f))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
