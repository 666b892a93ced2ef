package review_test

import (
	"testing"

	"kgforge/bundle"
	"kgforge/consolidate/link"
	"kgforge/kg"
	"kgforge/review"
)

// TestLinkDecisionOnARowChangesTheNextBuild: the review of a real build
// shows the uncertain SAME_AS of "Kestrel Alloys Ltd." and the row
// suppliers[S001]; Accept on the page makes the next build put the name
// on the row's node, and Reject (replacing the Accept) keeps it off.
func TestLinkDecisionOnARowChangesTheNextBuild(t *testing.T) {
	in := suppliersInput(t)
	g := build(t, in)
	row, target := link.RowID("suppliers", "S001"), kg.RowTarget("suppliers", "S001")
	same := linkTo(g, "Kestrel Alloys Ltd.", kg.LinkSameAs, target)
	if len(same) != 1 || same[0].Band != kg.LinkBandUncertain {
		t.Fatalf("first build: SAME_AS links %+v; want one uncertain to %s", same, target)
	}
	e := newEnv(t, bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Tables: in.Tables, Graph: g}, review.Options{})

	in.Overrides = decide(t, e, same[0], "accept")
	if got := in.Overrides.Link().MustLink; len(got) != 1 || got[0].Entity != "Kestrel Alloys Ltd." || got[0].Target != target {
		t.Fatalf("after Accept the file's links: %+v", in.Overrides.Links)
	}
	again := build(t, in)
	if c := clusterOf(again, "Kestrel Alloys Ltd."); c != row {
		t.Errorf("after Accept, Kestrel Alloys Ltd. is in node %s; want the row's %s", c, row)
	}
	if l := linkTo(again, "Kestrel Alloys Ltd.", kg.LinkSameAs, target); len(l) != 0 {
		t.Errorf("after Accept the link log still has %+v", l)
	}

	in.Overrides = decide(t, e, same[0], "reject")
	if o := in.Overrides.Link(); len(o.MustLink) != 0 || len(o.CannotLink) != 1 {
		t.Fatalf("after Reject the file's links: %+v", in.Overrides.Links)
	}
	again = build(t, in)
	if c := clusterOf(again, "Kestrel Alloys Ltd."); c == row || c == "" {
		t.Errorf("after Reject, Kestrel Alloys Ltd. is in node %q; want a node of its own", c)
	}
	for _, l := range linkTo(again, "Kestrel Alloys Ltd.", kg.LinkSameAs, target) {
		if l.Band != kg.LinkBandNone {
			t.Errorf("after Reject the link log has %+v; want no SAME_AS in the graph or for review", l)
		}
	}
}
