package review_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kgforge/bundle"
	"kgforge/kg"
	"kgforge/review"
)

// rankingFixture is a merge log of three uncertain pairs whose doubt
// (how near each came to its own threshold) orders them otherwise than
// their cosine, and their calibrated scores (scores, when given) otherwise
// than both.
func rankingFixture(scores ...float64) bundle.Contents {
	var g kg.Graph
	pair := func(a, b string, cos float64, rule string, doubt float64, signals ...string) {
		var score float64
		if len(scores) > 0 {
			score, scores = scores[0], scores[1:]
		}
		na, nb := "n-"+a, "n-"+b
		g.Nodes = append(g.Nodes, concept(na, a, "Company"), concept(nb, b, "Company"))
		g.Merges = append(g.Merges, merge(na, a, a, "Company", "single", 1), merge(nb, b, b, "Company", "single", 1))
		g.MergeLinks = append(g.MergeLinks, kg.MergeLink{
			ClusterID: na, A: a, B: b, BCluster: nb, Cosine: cos, Signals: signals, Band: "uncertain", Rule: rule, Decision: "uncertain", Doubt: doubt, Score: score,
		})
	}
	pair("Serra Brakes", "Serra Brakes S.A.", 0.905, "uncertain_cosine", 0.985, "cosine")
	pair("IBM", "IBM Corp", 0.95, "guard_short", 0.98, "suffix", "plural", "cosine")
	pair("Danubia", "Danubia Wheelworks", 0.70, "key_without_cosine", 0.9, "containment:0.62", "idf_overlap:0.41")
	return bundle.Contents{Graph: g}
}

// TestServer_RanksUncertainPairsMostLikelyFirst: the uncertain band is
// listed by how likely each pair is one thing, not by its doubt: by the
// calibrated score of merge_links.parquet when the bundle has one, else by
// cosine; each pair shows every signal of its merge log row, and the
// calibrated score as "likely the same" — a cosine is no probability, so
// a page ranked by cosine shows none under that name.
func TestServer_RanksUncertainPairsMostLikelyFirst(t *testing.T) {
	t.Run("cosine", func(t *testing.T) {
		checkRanking(t, rankingFixture(), []string{"IBM", "Serra Brakes", "Danubia"}, "cosine",
			func(l kg.MergeLink) float64 { return l.Cosine })
	})
	t.Run("calibrated score", func(t *testing.T) {
		checkRanking(t, rankingFixture(0.74, 0.12, 0.81), []string{"Danubia", "Serra Brakes", "IBM"}, "calibrated score",
			func(l kg.MergeLink) float64 { return l.Score })
	})
}

func checkRanking(t *testing.T, c bundle.Contents, want []string, by string, score func(kg.MergeLink) float64) {
	t.Helper()
	e := newEnv(t, c, review.Options{})
	var got []string
	for _, it := range e.srv.Items() {
		if it.Kind == review.KindPair { // then a node item per node
			got = append(got, it.Link.A)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("uncertain pairs listed %q, want %q (most likely the same first, by %s)", got, want, by)
	}
	_, page := e.get(t, "/")
	header := "most likely the same first (by " + by + ")"
	if by == "cosine" {
		header = "uncertain pairs by cosine, highest first (the rules that left them apart give no probability"
	}
	if !strings.Contains(page, header) {
		t.Errorf("the page does not say the pairs are ranked by %s: want %q", by, header)
	}
	for n, it := range e.srv.Items()[:len(want)] {
		want := fmt.Sprintf(`data-testid="likelihood-%d">%.2f (%s)<`, n+1, score(it.Link), by)
		listed := strings.Contains(page, fmt.Sprintf(`data-testid="likelihood-%d"`, n+1))
		switch {
		case by == "cosine" && listed:
			t.Errorf("item %d shows its cosine as a likelihood", n+1)
		case by != "cosine" && !strings.Contains(page, want):
			t.Errorf("item %d does not show its likelihood: want %s", n+1, want)
		}
		m := regexp.MustCompile(fmt.Sprintf(`data-testid="signals-%d">(.*?)</dd>`, n+1)).FindStringSubmatch(page)
		if m == nil {
			t.Errorf("item %d shows no signals", n+1)
			continue
		}
		var shown []string
		for _, s := range regexp.MustCompile(`<code class="signal">(.*?)</code>`).FindAllStringSubmatch(m[1], -1) {
			shown = append(shown, s[1])
		}
		if !slices.Equal(shown, it.Link.Signals) {
			t.Errorf("item %d shows the signals %q, want every one of the merge log's %q", n+1, shown, it.Link.Signals)
		}
	}
}
