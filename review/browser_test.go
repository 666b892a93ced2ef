package review_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/consolidate/link"
	"kgforge/consolidate/resolve"
	"kgforge/kg"
	"kgforge/review"

	"github.com/chromedp/chromedp"
)

// chromium returns the browser the integration test drives: $KGFORGE_CHROMIUM,
// else Debian's chromium (make test installs it: scripts/chromium.sh).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KGFORGE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("KGFORGE_INTEGRATION is set but no chromium was found: run scripts/chromium.sh up (make test does), or set KGFORGE_CHROMIUM to a Chrome or Chromium binary")
	return ""
}

// namedVectors is a hand-written Embedder for the rebuild: fixed vectors
// by name, so "Lisbon warehouse" and "Lisbon depot" come out at cosine
// 0.97, above the default High, and merge.
type namedVectors map[string][]float32

func (v namedVectors) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if out[i] = v[t]; out[i] == nil {
			return nil, fmt.Errorf("no vector for %q", t)
		}
	}
	return out, nil
}

// plantsInput is an extraction that consolidate.Build merges into
// "Porto plant" (two spellings of one name) and "Lisbon warehouse" (two
// names with near vectors).
func plantsInput() consolidate.Input {
	text := "Acme Corp supplies the Porto plant. The Porto Plant ships to the Lisbon warehouse. Velora Cycles runs the Lisbon depot."
	mention := func(name, typ string) kg.Mention {
		i := strings.Index(text, name)
		return kg.Mention{ChunkID: "c1", Surface: name, Type: typ, Span: kg.Span{Start: i, End: i + len(name)}}
	}
	fact := func(id string, s kg.Mention, pred string, o kg.Mention) kg.Triplet {
		return kg.Triplet{ID: id, ChunkID: "c1", Subject: s, Predicate: pred, Object: o, Evidence: text, EvidenceSpan: kg.Span{End: len(text)}, Confidence: 1}
	}
	acme, velora := mention("Acme Corp", "Company"), mention("Velora Cycles", "Company")
	porto, porto2 := mention("Porto plant", "Facility"), mention("Porto Plant", "Facility")
	lisbon, depot := mention("Lisbon warehouse", "Facility"), mention("Lisbon depot", "Facility")
	return consolidate.Input{
		Sources: []kg.Source{{ID: "s1", URI: "docs/plants.md", Kind: kg.KindMarkdown}},
		Chunks:  []kg.Chunk{{ID: "c1", SourceID: "s1", Text: text, Span: kg.Span{End: len(text)}, Section: "Plants"}},
		Triplets: []kg.Triplet{
			fact("t1", acme, "supplies", porto),
			fact("t2", porto2, "ships_to", lisbon),
			fact("t3", velora, "runs", depot),
		},
		Embedder: namedVectors{
			"Acme Corp":        {1, 0, 0, 0},
			"Velora Cycles":    {0, 1, 0, 0},
			"Porto plant":      {0, 0, 1, 0},
			"Porto Plant":      {0, 0, 1, 0},
			"Lisbon warehouse": {0, 0, 0, 1},
			"Lisbon depot":     {0, 0, 0.243, 0.97},
		},
		FixedPredicates: true,
	}
}

// conceptNames returns the names of a graph's entity nodes, one string
// per node: its name and aliases, sorted, joined by "+".
func conceptNames(g kg.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		if n.Kind == kg.NodeConcept {
			names := append([]string{n.Name}, n.Aliases...)
			slices.Sort(names)
			out = append(out, strings.Join(names, "+"))
		}
	}
	slices.Sort(out)
	return out
}

// TestReviewBrowserIntegration drives the page in a real headless
// Chromium over a bundle that consolidate.Build wrote: the reviewer
// rejects the merge of "Lisbon warehouse" and "Lisbon depot" with the
// button, the page shows it decided, the overrides file holds the
// cannot_link, and a rebuild with that file keeps the two names apart.
func TestReviewBrowserIntegration(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("drives a real headless Chromium; set KGFORGE_INTEGRATION=1 (make test does)")
	}
	exe := chromium(t)

	in := plantsInput()
	out, err := consolidate.Build(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Acme Corp", "Lisbon depot+Lisbon warehouse", "Porto Plant+Porto plant", "Velora Cycles"}
	if got := conceptNames(out.Graph); !slices.Equal(got, want) {
		t.Fatalf("first build: entity nodes %q, want %q", got, want)
	}
	e := newEnv(t, bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Triplets: in.Triplets, Graph: out.Graph}, review.Options{By: "ana", Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	lisbon, porto := 0, 0
	for _, it := range e.srv.Items() {
		switch {
		case it.Kind != review.KindPair:
		case it.Link.A+"|"+it.Link.B == "Lisbon warehouse|Lisbon depot" || it.Link.A+"|"+it.Link.B == "Lisbon depot|Lisbon warehouse":
			lisbon = it.N
		case strings.EqualFold(it.Link.A, "Porto plant") && strings.EqualFold(it.Link.B, "Porto plant"):
			porto = it.N
		}
	}
	if lisbon == 0 || porto == 0 {
		t.Fatalf("the review lacks the pairs to decide: %+v", e.srv.Items())
	}

	ctx := newBrowser(t, exe)

	sel := func(format string, args ...any) chromedp.CSS {
		return chromedp.CSS(fmt.Sprintf(`[data-testid=%q]`, fmt.Sprintf(format, args...)))
	}
	text := func(s chromedp.CSS) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(s))
		if err != nil {
			t.Fatalf("read %s: %v", s, err)
		}
		return strings.TrimSpace(v)
	}

	refusesOtherSites(ctx, t, e, lisbon)
	if err := chromedp.Do(ctx, chromedp.Navigate(e.url), chromedp.WaitVisible(sel("item-1"))); err != nil {
		t.Fatalf("open the review page: %v", err)
	}
	// "Porto plant" and "Porto Plant" are one name once folded: the page
	// says a decision on them names each as written, with its type.
	if s := text(sel("bysurface-%d", porto)); !strings.Contains(s, "names each as written") {
		t.Errorf("the same-name pair says %q", s)
	}

	if h := text(sel("item-%d", lisbon)); !strings.Contains(h, "Lisbon") || !strings.Contains(h, "undecided") {
		t.Fatalf("item %d reads %q", lisbon, h)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(sel("note-%d", lisbon), "the depot is another building"),
		chromedp.Click(sel("reject-%d", lisbon)),
		// The POST redirects back to the page, which shows the decision.
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#item-%d[data-status="rejected"]`, lisbon))),
	)
	if err != nil {
		t.Fatalf("click reject-%d: %v", lisbon, err)
	}
	status := text(sel("status-%d", lisbon))
	if !strings.HasPrefix(status, "rejected by ana at ") || !strings.Contains(status, "the depot is another building") {
		t.Errorf("after the click item %d says %q", lisbon, status)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(loc, fmt.Sprintf("/?page=1#item-%d", lisbon)) {
		t.Errorf("after the click the browser is at %q (%v)", loc, err)
	}
	// The script's filter hides decided items.
	err = chromedp.Do(ctx,
		chromedp.Click(sel("hide-decided")),
		chromedp.WaitNotVisible(sel("item-%d", lisbon)),
		chromedp.WaitVisible(sel("item-%d", porto)),
	)
	if err != nil {
		t.Errorf("hide decided items: %v", err)
	}

	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.CannotLink) != 1 || !samePairNames(o.CannotLink[0], "Lisbon warehouse", "Lisbon depot") ||
		o.CannotLink[0].By != "ana" || o.CannotLink[0].Note != "the depot is another building" || len(o.MustLink)+len(o.KeepApart) != 0 {
		t.Fatalf("overrides after the click: %+v; want one cannot_link of Lisbon warehouse and Lisbon depot", o)
	}

	// The next build obeys the decision: two nodes.
	in.Overrides = o
	again, err := consolidate.Build(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"Acme Corp", "Lisbon depot", "Lisbon warehouse", "Porto Plant+Porto plant", "Velora Cycles"}
	if got := conceptNames(again.Graph); !slices.Equal(got, want) {
		t.Errorf("rebuild with the overrides: entity nodes %q, want %q", got, want)
	}
	if len(again.Resolution.UnmatchedOverrides) != 0 {
		t.Errorf("the rebuild did not apply every override: %+v", again.Resolution.UnmatchedOverrides)
	}
}

// newBrowser starts a headless Chromium for the test and returns a context
// of its first tab, bounded to a minute of use.
func newBrowser(t *testing.T, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		// attacker.example is a name of another site that now resolves to
		// this machine: the DNS-rebinding path.
		chromedp.Flag("host-resolver-rules", "MAP attacker.example 127.0.0.1"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancelBrowser)
	// The first action starts the browser, which lives as long as the
	// context it ran on: no timeout there (chromedp.Run's contract).
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	t.Cleanup(cancel)

	return ctx
}

// refusesOtherSites has the browser try what another site could: read
// the page through a rebound name, and post a decision, with the page's
// token, from a page of its own. Both are refused and nothing is written.
func refusesOtherSites(ctx context.Context, t *testing.T, e *env, item int) {
	t.Helper()
	_, port, _ := net.SplitHostPort(e.addr)
	errorText := func(page string) (string, error) {
		if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`[data-testid="error"]`))); err != nil {
			return "", err
		}
		return chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="error"]`)))
	}
	if msg, err := errorText("http://attacker.example:" + port + "/"); err != nil || !strings.Contains(msg, "does not answer to the host") {
		t.Errorf("the review page through a rebound name: %q (%v); want it refused", msg, err)
	}
	evil := fmt.Sprintf(`<!doctype html><form method="post" action="%s/items/%d/accept">`+
		`<input type="hidden" name="token" value="%s"></form><script>document.forms[0].submit()</script>`, e.url, item, e.token(t))
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, evil)
	}))
	defer site.Close()
	for _, page := range []string{site.URL, strings.Replace(site.URL, "127.0.0.1", "attacker.example", 1)} {
		if msg, err := errorText(page); err != nil || !strings.Contains(msg, "comes from another site") {
			t.Errorf("a form posted from %s: %q (%v); want it refused", page, msg, err)
		}
	}
	e.untouched(t)
}

func samePairNames(l consolidate.Link, a, b string) bool {
	return (l.A == a && l.B == b) || (l.A == b && l.B == a)
}

// TestReviewBrowserLinkDecision drives the page in a real headless
// Chromium over a bundle with a link log: the reviewer rejects an
// uncertain SAME_AS (an extracted company that might be a row of
// suppliers) and accepts an uncertain REPRESENTED_BY (the concept
// "supplier" is the table suppliers) with the buttons; the page shows both decided, and the overrides file holds them
// in its links: section, which gives the link step its link.Overrides.
func TestReviewBrowserLinkDecision(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("drives a real headless Chromium; set KGFORGE_INTEGRATION=1 (make test does)")
	}
	e := newEnv(t, linkFixture(), review.Options{By: "ana", Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	ctx := newBrowser(t, chromium(t))
	sel := func(format string, args ...any) chromedp.CSS {
		return chromedp.CSS(fmt.Sprintf(`[data-testid=%q]`, fmt.Sprintf(format, args...)))
	}
	text := func(s chromedp.CSS) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(s))
		if err != nil {
			t.Fatalf("read %s: %v", s, err)
		}
		return strings.TrimSpace(v)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(e.url), chromedp.WaitVisible(sel("item-%d", linkKestrel))); err != nil {
		t.Fatalf("open the review page: %v", err)
	}
	if s := text(sel("target-%d", linkKestrel)); !strings.Contains(s, "row S1 of suppliers: the entity Kestrel Alloys") {
		t.Errorf("the row target reads %q", s)
	}
	if s := text(sel("status-%d", linkKestrel)); s != "undecided" {
		t.Fatalf("item %d says %q before any click", linkKestrel, s)
	}
	err := chromedp.Do(ctx,
		chromedp.SendKeys(sel("note-%d", linkKestrel), "Kestrel Alloys Ltd. is the UK parent, not this supplier"),
		chromedp.Click(sel("reject-%d", linkKestrel)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#item-%d[data-status="rejected"]`, linkKestrel))),
		chromedp.Click(sel("accept-%d", linkSupplier)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#item-%d[data-status="accepted"]`, linkSupplier))),
	)
	if err != nil {
		t.Fatalf("decide the links: %v", err)
	}
	if s := text(sel("status-%d", linkKestrel)); !strings.HasPrefix(s, "rejected by ana at ") || !strings.Contains(s, "the UK parent") {
		t.Errorf("after the click item %d says %q", linkKestrel, s)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(loc, fmt.Sprintf("/?page=1#item-%d", linkSupplier)) {
		t.Errorf("after the click the browser is at %q (%v)", loc, err)
	}

	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	got := o.Link()
	wantMust := []link.Pair{{Entity: "supplier", Target: "suppliers", By: "ana"}}
	wantCannot := []link.Pair{{Entity: "Kestrel Alloys Ltd.", Target: "suppliers[S1]", By: "ana"}}
	if !slices.Equal(got.MustLink, wantMust) || !slices.Equal(got.CannotLink, wantCannot) ||
		o.Links.CannotLink[0].Note != "Kestrel Alloys Ltd. is the UK parent, not this supplier" || len(o.MustLink)+len(o.CannotLink) != 0 {
		t.Fatalf("overrides after the clicks: %+v (links %+v); want a must_link of supplier and a cannot_link of Kestrel Alloys Ltd.", o, o.Links)
	}
}

// TestReviewBrowserLinkDecisionChangesTheNextBuild: over the review of a
// real build, the reviewer rejects the link of the concept "supplier" to
// the table suppliers with the button in Chromium; the next build with
// the overrides file logs the link in band none by rule cannot_link and
// has no edge for it, and the review of that build shows it rejected.
func TestReviewBrowserLinkDecisionChangesTheNextBuild(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("drives a real headless Chromium; set KGFORGE_INTEGRATION=1 (make test does)")
	}
	in := suppliersInput(t)
	g := build(t, in)
	rep := linkTo(g, "supplier", kg.LinkRepresentedBy, "suppliers")
	if len(rep) != 1 || rep[0].Band != kg.LinkBandLinked {
		t.Fatalf("first build: REPRESENTED_BY links %+v; want supplier → suppliers linked", rep)
	}
	contents := func(g kg.Graph) bundle.Contents {
		return bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Tables: in.Tables, Graph: g}
	}
	e := newEnv(t, contents(g), review.Options{By: "ana"})
	n := itemOf(t, e, rep[0])
	ctx := newBrowser(t, chromium(t))
	err := chromedp.Do(ctx,
		chromedp.Navigate(e.url),
		chromedp.SendKeys(chromedp.CSS(fmt.Sprintf(`[data-testid="note-%d"]`, n)), "suppliers lists approved vendors only"),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid="reject-%d"]`, n))),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#item-%d[data-status="rejected"]`, n))),
	)
	if err != nil {
		t.Fatalf("reject item %d: %v", n, err)
	}
	if in.Overrides, err = consolidate.LoadOverrides(e.overrides); err != nil {
		t.Fatal(err)
	}
	again := build(t, in)
	l := linkTo(again, "supplier", kg.LinkRepresentedBy, "suppliers")
	if len(l) != 1 || l[0].Band != kg.LinkBandNone || l[0].Rule != "cannot_link" || l[0].DecidedBy != "ana" || hasEdge(again, l[0]) {
		t.Fatalf("the next build: %+v; want the link in band none by rule cannot_link, decided by ana, with no edge", l)
	}
	// The review of the next build shows the link as the file decides it.
	next := newEnv(t, contents(again), review.Options{Overrides: e.overrides})
	_, page := next.get(t, "/")
	if m := itemOf(t, next, l[0]); !strings.Contains(page, fmt.Sprintf(`data-testid="item-%d" data-status="rejected"`, m)) {
		t.Errorf("the review of the next build does not show item %d rejected", m)
	}
}

// TestReviewBrowserSurfaceDecisionChangesTheNextBuild drives the page in
// a real headless Chromium over a build that merged "Apple" the company
// and "apple" the fruit (one name once folded, one type): the pair has a
// Reject button and says the decision names them as written; the click
// writes a cannot_link of the two surfaces with their types, and the next
// build keeps them apart.
func TestReviewBrowserSurfaceDecisionChangesTheNextBuild(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("drives a real headless Chromium; set KGFORGE_INTEGRATION=1 (make test does)")
	}
	in := appleInput()
	g := build(t, in)
	e := newEnv(t, bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Triplets: in.Triplets, Graph: g}, review.Options{By: "ana"})
	n := applePair(t, e)
	ctx := newBrowser(t, chromium(t))
	sel := func(format string, args ...any) chromedp.CSS {
		return chromedp.CSS(fmt.Sprintf(`[data-testid=%q]`, fmt.Sprintf(format, args...)))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(e.url), chromedp.WaitVisible(sel("item-%d", n))); err != nil {
		t.Fatalf("open the review page: %v", err)
	}
	note, err := chromedp.Run(ctx, chromedp.Text(sel("bysurface-%d", n)))
	if err != nil {
		t.Fatalf("read the pair's note: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(sel("note-%d", n), "the fruit, not the company"),
		chromedp.Click(sel("reject-%d", n)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#item-%d[data-status="rejected"]`, n))),
	)
	if err != nil {
		t.Fatalf("reject item %d: %v", n, err)
	}
	if !strings.Contains(note, "names each as written") {
		t.Errorf("the pair says %q; want that the decision names each name as written", note)
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	want := consolidate.Link{A: "Apple", AType: "Organization", B: "apple", BType: "Organization", Match: resolve.MatchSurface}
	if len(o.CannotLink) != 1 || !o.CannotLink[0].Names(consolidate.Surface{Name: "apple", Type: "Organization"}, consolidate.Surface{Name: "Apple", Type: "Organization"}) ||
		o.CannotLink[0].Match != want.Match || o.CannotLink[0].Note != "the fruit, not the company" {
		t.Fatalf("overrides after the click: %+v; want one cannot_link like %+v", o.CannotLink, want)
	}
	in.Overrides = o
	if got := conceptNames(build(t, in)); !slices.Contains(got, "Apple") || !slices.Contains(got, "apple") {
		t.Errorf("the next build: entity nodes %q; want Apple and apple apart", got)
	}
}

// TestReviewBrowserEntityDecisionsChangeTheNextBuild drives the page in a
// real headless Chromium over a build a small model read badly: the
// reviewer joins "Danubia Wheelworks" the Person with the row entity of
// that name (the type field offers the row's type, Supplier), sets the
// type of "Aurora" to BicycleModel and marks "about" as not an entity;
// the page shows each decided, the overrides file holds the three, and
// the next build obeys them.
func TestReviewBrowserEntityDecisionsChangeTheNextBuild(t *testing.T) {
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("drives a real headless Chromium; set KGFORGE_INTEGRATION=1 (make test does)")
	}
	in := entitiesInput(t)
	g := build(t, in)
	e := newEnv(t, bundle.Contents{Sources: in.Sources, Chunks: in.Chunks, Triplets: in.Triplets, Tables: in.Tables, Graph: g}, review.Options{By: "ana"})
	join := entityItem(t, e, review.KindJoin, "Danubia Wheelworks")
	aurora := entityItem(t, e, review.KindNode, "Aurora")
	about := entityItem(t, e, review.KindNode, "about")
	ctx := newBrowser(t, chromium(t))
	sel := func(format string, args ...any) chromedp.CSS {
		return chromedp.CSS(fmt.Sprintf(`[data-testid=%q]`, fmt.Sprintf(format, args...)))
	}
	decided := func(n int, status string) chromedp.Action[chromedp.Void] {
		return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#item-%d[data-status=%q]`, n, status)))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(e.url), chromedp.WaitVisible(sel("item-%d", join))); err != nil {
		t.Fatalf("open the review page: %v", err)
	}
	proposed, err := chromedp.Run(ctx, chromedp.Value(sel("jointype-%d", join)))
	if err != nil {
		t.Fatalf("read the join's type field: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(sel("join-%d", join)),
		decided(join, "joined"),
		chromedp.SendKeys(sel("settype-%d", aurora), "BicycleModel"),
		chromedp.Click(sel("retype-%d", aurora)),
		decided(aurora, "typed"),
		chromedp.SendKeys(sel("note-%d", about), "a preposition"),
		chromedp.Click(sel("notentity-%d", about)),
		decided(about, "not_entity"),
	)
	if err != nil {
		t.Fatalf("decide on the entities: %v", err)
	}
	if proposed != "Supplier" {
		t.Errorf("the join proposed the type %q; want the row's, Supplier", proposed)
	}
	for n, want := range map[int]string{join: "joined as one Supplier by ana", aurora: "type set to BicycleModel by ana", about: "not an entity by ana"} {
		if s, err := chromedp.Run(ctx, chromedp.Text(sel("status-%d", n))); err != nil || !strings.HasPrefix(strings.TrimSpace(s), want) {
			t.Errorf("item %d says %q (%v); want %q", n, s, err, want)
		}
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	checkEntityDecisions(t, o)
	in.Overrides = o
	checkRebuild(t, in)
}
