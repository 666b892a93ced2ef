package review_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"kgforge/kg"
	"kgforge/review"
)

// BenchmarkNewWithLinkLog measures review.New over a bundle whose link log
// has 100,000 links, of which 5,000 are for review (uncertain or linked
// concept links) and the rest ROW_OF links and candidates below the bands,
// which the page does not read into memory (and the merge fixture's 9
// items and 7 node items).
func BenchmarkNewWithLinkLog(b *testing.B) {
	c := linkFixture()
	c.Graph.Links = nil
	for i := range 100_000 {
		key := fmt.Sprintf("S%06d", i)
		switch {
		case i%20 == 0:
			c.Graph.Links = append(c.Graph.Links, dataLink(fmt.Sprintf("n-c%d", i), fmt.Sprintf("concept %d", i), kg.LinkMeasuredBy,
				kg.ColumnNodeID("parts", "lead_time_days"), "parts.lead_time_days", "uncertain", "score_uncertain", 0.5+float64(i%40)/100))
		case i%2 == 0:
			c.Graph.Links = append(c.Graph.Links, dataLink("n-r"+key, "row "+key, kg.LinkRowOf, kg.TableNodeID("suppliers"), kg.RowTarget("suppliers", key), "linked", "row_of", 1))
		default:
			c.Graph.Links = append(c.Graph.Links, dataLink(fmt.Sprintf("n-c%d", i), fmt.Sprintf("concept %d", i), kg.LinkRepresentedBy, kg.TableNodeID("parts"), "parts", "none", "score_low", 0.3))
		}
	}
	bdl := writeBundle(b, c)
	opts := review.Options{Overrides: filepath.Join(b.TempDir(), "overrides.yaml")}
	b.ResetTimer()
	for b.Loop() {
		s, err := review.New(b.Context(), bdl, opts)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.Items()); n != 5000+9+7 {
			b.Fatalf("%d items", n)
		}
	}
}
