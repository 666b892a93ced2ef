package review_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/kg"
	"kgforge/review"
)

// dataLink is a candidate link of the link log.
func dataLink(src, name, typ, dst, target, band, rule string, score float64, evidence ...string) kg.Link {
	by := "auto"
	if rule == "cannot_link" || rule == "must_link" {
		by = "rui"
	}
	return kg.Link{
		ID: kg.EdgeID(src, typ, dst), Src: src, SrcName: name, Dst: dst, Target: target, Type: typ, Score: score,
		Signals: []string{"name_match", fmt.Sprintf("cosine:%.2f", score)}, Band: band, Rule: rule, DecidedBy: by, Evidence: evidence,
	}
}

// linkFixture is the merge log's fixture with a data layer (two tables, a
// row entity) and a link log: an uncertain concept link, an uncertain
// SAME_AS of an extracted company and a row (with the resolver's pair
// behind it), an uncertain link the overrides file cannot name, a linked
// column, a link an expert refused, and links the page leaves out (a
// ROW_OF, a candidate below the bands).
func linkFixture() bundle.Contents {
	c := fixture()
	c.Tables = []kg.Table{
		{Name: "suppliers", SourceID: "s2", Rows: 3, PrimaryKeys: []string{"id"}, Columns: []kg.Column{
			{Name: "id", Type: "VARCHAR", Distinct: 3, Samples: []string{"S1", "S2", "S3"}},
			{Name: "name", Type: "VARCHAR", Distinct: 3, Samples: []string{"Kestrel Alloys", "TechChip Inc"}},
		}},
		{Name: "parts", SourceID: "s3", Rows: 40, Columns: []kg.Column{
			{Name: "id", Type: "BIGINT", Distinct: 40},
			{Name: "lead_time_days", Type: "BIGINT", Distinct: 12, Nulls: 2, Min: "3", Max: "45", Samples: []string{"7", "14"}},
		}},
	}
	g := &c.Graph
	row := kg.Node{
		ID: "n-row-s1", Name: "Kestrel Alloys", Kind: kg.NodeConcept, Labels: []string{"Entity", "Supplier"},
		Properties: map[string]string{"type": "Supplier", kg.PropTable: "suppliers", kg.PropKeyColumn: "id", kg.PropKey: "S1"},
	}
	g.Nodes = append(g.Nodes,
		concept("n-supplier", "supplier", "Concept"),
		concept("n-lead", "lead time", "Quantity"),
		concept("n-kestrel", "Kestrel Alloys Ltd.", "Company"),
		row,
	)
	g.Links = []kg.Link{
		dataLink("n-lead", "lead time", kg.LinkMeasuredBy, kg.ColumnNodeID("parts", "lead_time_days"), "parts.lead_time_days", "linked", "score_high", 0.9, ev("Porto plant")),
		dataLink("n-supplier", "supplier", kg.LinkRepresentedBy, kg.TableNodeID("suppliers"), "suppliers", "uncertain", "score_uncertain", 0.6),
		dataLink("n-kestrel", "Kestrel Alloys Ltd.", kg.LinkSameAs, "n-row-s1", "suppliers[S1]", "uncertain", "uncertain_cosine", 0.58, "suppliers[S1]", ev("Acme Corp")),
		dataLink("n-row-s1", "Kestrel Alloys", kg.LinkRowOf, kg.TableNodeID("suppliers"), "suppliers[S1]", "linked", "row_of", 1),
		dataLink("n-acme", "Acme Corp", kg.LinkRepresentedBy, kg.TableNodeID("parts"), "parts", "none", "score_low", 0.1),
		dataLink("n-evil", "Evil Co", kg.LinkRepresentedBy, "x", "no such[", "uncertain", "score_uncertain", 0.5),
		dataLink("n-beta", "Beta Ltd", kg.LinkRepresentedBy, kg.TableNodeID("parts"), "parts", "none", "cannot_link", 0.8),
	}
	// The resolver's uncertain pair behind the SAME_AS link: the link's
	// item shows it.
	g.MergeLinks = append(g.MergeLinks, kg.MergeLink{
		ClusterID: "n-kestrel", A: "Kestrel Alloys Ltd.", B: "Kestrel Alloys", BCluster: "n-row-s1", Cosine: 0.58,
		Band: "uncertain", Rule: "uncertain_cosine", Decision: "uncertain", Doubt: 0.95,
	})
	return c
}

// The link fixture's items, in the order the page lists them: the merge
// fixture's uncertain pairs, the uncertain links, the merged pairs, the
// linked link, the link an expert refused, then the nodes.
const (
	linkSupplier = 3 // uncertain, score 0.6
	linkKestrel  = 4 // uncertain, score 0.58
	linkBad      = 5 // uncertain, score 0.5, target does not parse
	linkLead     = 9 // linked
	linkBeta     = 10
)

func TestServerShowsUncertainLinksBesideUncertainMerges(t *testing.T) {
	e := newEnv(t, linkFixture(), review.Options{})
	want := []string{
		"pair Beta Ltd", "pair Acme Corp",
		"link supplier→suppliers", "link Kestrel Alloys Ltd.→suppliers[S1]", "link Evil Co→no such[",
		"pair Lisbon warehouse", "pair Evil Co", "pair Porto plant",
		"link lead time→parts.lead_time_days", "link Beta Ltd→parts",
		"cluster Lisbon warehouse", "cluster Evil Co", "cluster Porto plant",
		"node ACME Inc.", "node Acme Corp", "node Beta Limited", "node Beta Ltd", "node Evil Co", "node Lisbon warehouse", "node Porto plant",
	}
	items := e.srv.Items()
	var got []string
	for _, it := range items {
		s := string(it.Kind) + " " + it.Members[0].Name
		if it.Kind == review.KindLink {
			s += "→" + it.DataLink.Target
		}
		got = append(got, s)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, body := e.get(t, "/")
	for _, s := range []string{
		// the link, its facts, the entity with its type and evidence
		`<span class="name">supplier</span> <span class="vs">→ REPRESENTED_BY →</span> <span class="target">suppliers</span>`,
		`<dd class="decision uncertain">uncertain</dd>`, `<dd>0.60</dd>`, `<dd>name_match, cosine:0.60</dd>`,
		`<span class="type">Quantity</span>`,
		`Acme Corp supplies the <mark>Porto plant</mark>.`,
		// a table: its rows and columns with samples
		`table <code>suppliers</code> · 3 rows · 2 columns`,
		`<code>name</code> <span class="type">VARCHAR</span> e.g. <code>Kestrel Alloys</code>, <code>TechChip Inc</code>`,
		// a column: its profile
		`column <code>lead_time_days</code> of <code>parts</code> (40 rows)`,
		`BIGINT · 12 distinct · 2 null · from 3 to 45`,
		// a row: its key, its entity and the row evidence
		`row <code>S1</code> of <code>suppliers</code>: the entity <span class="name">Kestrel Alloys</span>`,
		`<dt>key_column</dt><dd>id</dd>`,
		`row S1 of table suppliers · <code>suppliers[S1]</code>`,
		// a target the overrides file cannot name has no buttons
		fmt.Sprintf(`data-testid="unnamable-%d"`, linkBad),
		fmt.Sprintf(`data-testid="accept-%d" class="accept">Accept: linked</button>`, linkSupplier),
		fmt.Sprintf(`data-testid="reject-%d" class="reject">Reject: not linked</button>`, linkKestrel),
		`<dt>decided by</dt><dd>rui</dd>`,
	} {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks %s", s)
		}
	}
	for _, s := range []string{"Acme Corp</span> <span class=\"vs\">→ REPRESENTED_BY", "→ ROW_OF →"} {
		if strings.Contains(body, s) {
			t.Errorf("the page shows %s, which is not for review", s)
		}
	}
	if strings.Contains(body, fmt.Sprintf(`data-testid="accept-%d"`, linkBad)) {
		t.Error("the unnamable link has an Accept button")
	}
}

func TestServerLinkDecisionsWriteTheLinksSection(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	e := newEnv(t, linkFixture(), review.Options{Now: func() time.Time { return at }})
	tok := e.token(t)
	post := func(item int, action string, form url.Values) {
		t.Helper()
		form.Set("token", tok)
		code, loc, body := e.post(t, fmt.Sprintf("/items/%d/%s", item, action), form)
		if code != http.StatusSeeOther || loc != fmt.Sprintf("/?page=1#item-%d", item) {
			t.Fatalf("POST %s item %d = %d, Location %q\n%s", action, item, code, loc, body)
		}
	}
	post(linkSupplier, "accept", url.Values{"note": {"the supplier table"}})
	post(linkKestrel, "reject", url.Values{})
	post(linkLead, "accept", url.Values{})
	post(linkLead, "reject", url.Values{"note": {"that is the promised time"}}) // replaces the accept
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	want := consolidate.LinkOverrides{
		MustLink: []consolidate.TargetLink{
			{Entity: "supplier", Target: "suppliers", Decision: consolidate.Decision{By: "ana", At: "2026-03-04T05:06:07Z", Note: "the supplier table"}},
		},
		CannotLink: []consolidate.TargetLink{
			{Entity: "Kestrel Alloys Ltd.", Target: "suppliers[S1]", Decision: consolidate.Decision{By: "ana", At: "2026-03-04T05:06:07Z"}},
			{Entity: "lead time", Target: "parts.lead_time_days", Decision: consolidate.Decision{By: "ana", At: "2026-03-04T05:06:07Z", Note: "that is the promised time"}},
		},
	}
	if o.Links == nil || fmt.Sprint(*o.Links) != fmt.Sprint(want) || len(o.MustLink)+len(o.CannotLink) != 0 {
		t.Fatalf("overrides = %+v\nlinks %+v\nwant  %+v", o, o.Links, want)
	}
	_, page := e.get(t, "/")
	for item, status := range map[int]string{
		linkSupplier: "accepted by ana at 2026-03-04T05:06:07Z: “the supplier table”",
		linkKestrel:  "rejected by ana at 2026-03-04T05:06:07Z",
		linkLead:     "rejected by ana at 2026-03-04T05:06:07Z: “that is the promised time”",
		linkBad:      "undecided",
	} {
		if !strings.Contains(page, fmt.Sprintf(`data-testid="status-%d">%s</p>`, item, status)) {
			t.Errorf("the page does not show item %d as %q", item, status)
		}
	}
	if !strings.Contains(page, "links: 1 must_link, 2 cannot_link") {
		t.Error("the page does not count the link decisions")
	}
}

func TestServerRefusesLinkDecisionsItCannotWrite(t *testing.T) {
	e := newEnv(t, linkFixture(), review.Options{})
	tok := e.token(t)
	for _, c := range []struct {
		path string
		form url.Values
		code int
		want string
	}{
		{fmt.Sprintf("/items/%d/accept", linkBad), url.Values{"token": {tok}}, http.StatusConflict, "cannot name the link"},
		{fmt.Sprintf("/items/%d/split", linkSupplier), url.Values{"token": {tok}, "member": {"supplier"}}, http.StatusBadRequest, "is a link, not a node"},
		{fmt.Sprintf("/items/%d/accept", linkSupplier), url.Values{}, http.StatusForbidden, "token is missing"},
		{fmt.Sprintf("/items/%d/reject", linkSupplier), url.Values{"token": {"00"}}, http.StatusForbidden, "token is missing or stale"},
	} {
		code, _, body := e.post(t, c.path, c.form)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("POST %s = %d\n%s\nwant %d saying %q", c.path, code, body, c.code, c.want)
		}
	}
	// From another site, with the token.
	code, body := e.raw(t, rawReq{
		method: "POST", target: fmt.Sprintf("/items/%d/accept", linkSupplier), host: e.addr,
		header: map[string][]string{"Origin": {"http://attacker.example"}}, body: url.Values{"token": {tok}}.Encode(),
	})
	if code != http.StatusForbidden {
		t.Errorf("a link decision from another origin = %d\n%s", code, body)
	}
	code, body = e.raw(t, rawReq{
		method: "POST", target: fmt.Sprintf("/items/%d/accept", linkSupplier), host: "attacker.example:" + strings.Split(e.addr, ":")[1],
		body: url.Values{"token": {tok}}.Encode(),
	})
	if code != http.StatusMisdirectedRequest {
		t.Errorf("a link decision through a rebound name = %d\n%s", code, body)
	}
	e.untouched(t)
}

// TestServerLinkDecisionKeepsHandEdits: a link decision re-reads the file,
// so merge decisions written by hand meanwhile stay, and a hand-written
// contradiction is refused with nothing written.
func TestServerLinkDecisionKeepsHandEdits(t *testing.T) {
	e := newEnv(t, linkFixture(), review.Options{})
	tok := e.token(t)
	hand := &consolidate.Overrides{}
	hand.Accept(consolidate.Link{A: "Acme Corp", B: "ACME Inc.", Decision: consolidate.Decision{By: "hand"}})
	if err := hand.Save(e.overrides); err != nil {
		t.Fatal(err)
	}
	if code, _, body := e.post(t, fmt.Sprintf("/items/%d/reject", linkSupplier), url.Values{"token": {tok}}); code != http.StatusSeeOther {
		t.Fatalf("reject = %d\n%s", code, body)
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil || len(o.MustLink) != 1 || o.Links == nil || len(o.Links.CannotLink) != 1 {
		t.Fatalf("overrides = %+v, %v", o, err)
	}
}
