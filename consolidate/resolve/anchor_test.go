package resolve

import (
	"strings"
	"testing"
)

// row is an anchored entity: a row entity of table suppliers.
func row(key, name string, v []float32) Entity {
	return Entity{Key: key, Name: name, Type: "Supplier", Vector: v, Anchor: "suppliers[" + key + "]"}
}

func TestResolve_AnchoredEntityNamesAndKeysItsCluster(t *testing.T) {
	var s space
	a := s.axis()
	ents := []Entity{
		row("S001", "Kestrel Alloys", a),
		{Key: "x1", Name: "Kestrel Alloys Ltd.", Type: "Company", Mentions: 5, Evidence: 3, Vector: s.near(a, 0.85)},
		ent("x2", "KESTREL ALLOYS", "Company", s.near(a, 0.95)),
	}
	res := mustResolve(t, ents, Config{Compatible: map[string][]string{"Company": {"Supplier"}}})
	if len(res.Clusters) != 1 {
		t.Fatalf("clusters %+v, want one: the row and the names that resolve onto it", res.Clusters)
	}
	c := res.Clusters[0]
	if c.ID != "S001" || c.Anchor != "suppliers[S001]" || c.Canonical != "Kestrel Alloys" || c.Type != "Supplier" {
		t.Errorf("cluster %s %q (%s, anchor %q), want the row's key, name and type though the extracted name has more mentions",
			c.ID, c.Canonical, c.Type, c.Anchor)
	}
}

func TestResolve_TwoAnchorsNeverMergeEvenThroughOthers(t *testing.T) {
	var s space
	a := s.axis()
	ents := []Entity{
		row("S001", "Kestrel Alloys", a),
		row("S009", "Kestrel Alloys", s.near(a, 0.99)), // the same name on two rows: two things
		ent("x1", "Kestrel Alloys", "Supplier", s.near(a, 0.99)),
	}
	res := mustResolve(t, ents, Config{})
	if c1, c2 := clusterOf(res, "S001"), clusterOf(res, "S009"); c1 == c2 {
		t.Fatalf("rows S001 and S009 ended in one cluster %+v", c1)
	}
	if len(res.Splits) != 1 || res.Splits[0].Reason != SplitAnchors {
		t.Errorf("splits %+v, want one %s split of the group the name joined", res.Splits, SplitAnchors)
	}
	if c := clusterOf(res, "x1"); c.Anchor == "" || len(c.Members) != 2 {
		t.Errorf("the extracted name's cluster %+v, want it on one of the rows", c)
	}
}

func TestResolve_MustLinkBetweenTwoAnchorsIsRefused(t *testing.T) {
	var s space
	ents := []Entity{row("S001", "Kestrel Alloys", s.axis()), row("S002", "Danubia Wheelworks", s.axis()), ent("x1", "Kestrel", "Company", s.axis())}
	cfg := Config{Overrides: Overrides{MustLink: []NamePair{{A: "x1", B: "S001"}, {A: "Kestrel", B: "Danubia Wheelworks"}}}}
	res := mustResolve(t, ents, cfg)
	if clusterOf(res, "S001") == clusterOf(res, "S002") {
		t.Fatal("a must-link chain joined two rows")
	}
	if clusterOf(res, "x1") != clusterOf(res, "S001") {
		t.Error("the must-link of an extracted name onto a row was not applied")
	}
	if len(res.UnmatchedOverrides) != 1 || !strings.Contains(res.UnmatchedOverrides[0].Reason, "two different records") {
		t.Errorf("override issues %+v, want the second must-link refused for joining two records", res.UnmatchedOverrides)
	}
}
