package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kgforge/bundle"
)

// BM25's parameters: the usual ones (Robertson and Zaragoza 2009).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// bm25 ranks the bundle's search documents (chunks, and nodes by name,
// aliases and description) for the query terms, in plain SQL over the
// bundle's postings (docs/bundle.md). It returns nil, not an empty
// ranking, for a bundle without a search index.
func (t *Toolbox) bm25(ctx context.Context, terms []string, depth int) ([]ranked, error) {
	if _, ok := t.b.Manifest.Files[bundle.PostingsFile]; !ok {
		return nil, nil
	}
	terms = slices.Compact(slices.Sorted(slices.Values(terms)))
	quoted := make([]string, len(terms))
	for i, term := range terms {
		quoted[i] = lit(term)
	}
	q := fmt.Sprintf(`WITH d AS (SELECT count(*) AS n, avg(len) AS avgdl FROM memory.main.postings_docs),
df AS (SELECT term, count(*) AS df FROM memory.main.postings WHERE term IN (%[1]s) GROUP BY term),
s AS (SELECT p.doc, sum(ln(1 + (d.n - df.df + 0.5) / (df.df + 0.5)) * p.tf * (%[2]g + 1)
                        / (p.tf + %[2]g * (1 - %[3]g + %[3]g * x.len / d.avgdl))) AS score
  FROM memory.main.postings p JOIN df USING (term) JOIN memory.main.postings_docs x USING (doc), d GROUP BY p.doc)
SELECT x.id, s.score FROM s JOIN memory.main.postings_docs x USING (doc) ORDER BY s.score DESC, x.id LIMIT %[4]d`,
		strings.Join(quoted, ", "), bm25K1, bm25B, depth)
	rows, _, err := t.rows(ctx, q, depth)
	if err != nil {
		return nil, err
	}
	out := make([]ranked, 0, len(rows))
	for _, r := range rows {
		score, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			return nil, fmt.Errorf("bm25 score %q of %s: %w", r[1], r[0], err)
		}
		out = append(out, ranked{ID: r[0], Score: score})
	}
	return out, nil
}
