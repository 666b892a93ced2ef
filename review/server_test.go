package review_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/kg"
	"kgforge/review"
)

var itemRE = regexp.MustCompile(`(?s)data-testid="item-(\d+)".*?<h2>(.*?)</h2>`)

func TestServer_ListingOrder(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	code, body := e.get(t, "/")
	if code != http.StatusOK {
		t.Fatalf("GET / = %d\n%s", code, body)
	}
	want := []struct {
		kind  review.Kind
		names string
	}{
		{review.KindPair, "Beta Ltd|Beta Limited"},
		{review.KindPair, "Acme Corp|ACME Inc."},
		{review.KindPair, "Lisbon warehouse|Lisbon depot"},
		{review.KindPair, "Evil Co|<script>alert(1)</script>"},
		{review.KindPair, "Porto plant|Porto Plant"},
		{review.KindCluster, "Lisbon warehouse|Lisbon depot"},
		{review.KindCluster, "Evil Co|<script>alert(1)</script>"},
		{review.KindCluster, "Porto plant|Porto Plant"},
		// Then every entity node, by type, then name.
		{review.KindNode, "ACME Inc."},
		{review.KindNode, "Acme Corp"},
		{review.KindNode, "Beta Limited"},
		{review.KindNode, "Beta Ltd"},
		{review.KindNode, "Evil Co|<script>alert(1)</script>"},
		{review.KindNode, "Lisbon warehouse|Lisbon depot"},
		{review.KindNode, "Porto plant|Porto Plant"},
	}
	items := e.srv.Items()
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d", len(items), len(want))
	}
	for i, w := range want {
		it := items[i]
		var names []string
		for _, m := range it.Members {
			names = append(names, m.Name)
		}
		if it.N != i+1 || it.Kind != w.kind || strings.Join(names, "|") != w.names {
			t.Errorf("item %d = #%d %s %q, want %s %q", i+1, it.N, it.Kind, names, w.kind, w.names)
		}
	}
	// The page shows them in that order.
	var got []string
	for _, m := range itemRE.FindAllStringSubmatch(body, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, ",") != "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15" {
		t.Errorf("page lists items %v", got)
	}
	for _, s := range []string{
		// the pair's facts, the canonical name, the evidence with its span
		// marked, the neighbourhood of each node
		`<dd class="decision uncertain">uncertain</dd>`,
		`<dd>0.90</dd>`,
		`<dd data-testid="signals-1"><code class="signal">cosine</code>, <code class="signal">suffix</code></dd>`,
		`supplies the <mark>Porto plant</mark>. The Porto Plant`,
		`docs/plants.md · Plants`,
		`<span class="rel">→ supplies</span> Porto plant`,
		`Acme Corp <span class="rel">supplies →</span> this`,
		`also called Lisbon depot`,
		`data-testid="reject-3"`, `data-testid="accept-3"`, `data-testid="split-6-2"`,
		// names equal once folded: decided as written, with their types
		`data-testid="bysurface-5"`, `data-testid="reject-5"`,
	} {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks %s", s)
		}
	}
	if strings.Contains(body, `data-testid="samename-`) {
		t.Error("a pair the overrides file can name says it cannot")
	}
}

func TestServer_EscapesNamesAndText(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	_, body := e.get(t, "/")
	if strings.Contains(body, "<script>alert(1)</script>") {
		t.Error("the page holds a member's name unescaped")
	}
	for _, s := range []string{
		`<span class="name">&lt;script&gt;alert(1)&lt;/script&gt;</span>`, // as a name
		`<mark>&lt;script&gt;alert(1)&lt;/script&gt;</mark>`,              // as evidence
		`value="&lt;script&gt;alert(1)&lt;/script&gt;" id="split-7-2"`,    // as a form value
		`Split “&lt;script&gt;alert(1)&lt;/script&gt;” off`,               // in a button
	} {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks the escaped %s", s)
		}
	}
	// An error page quotes what it was given, escaped too.
	_, body = e.get(t, "/?page=<script>alert(1)</script>")
	if strings.Contains(body, "<script>") || !strings.Contains(body, "&lt;script&gt;") {
		t.Errorf("the error page does not escape its input:\n%s", body)
	}
}

func TestServer_EvidenceNeverPanics(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{ContextBytes: 10})
	_, body := e.get(t, "/")
	for _, s := range []string{
		"the span lies outside chunk c1",                            // c1:990-1010 straddles the chunk's start
		`<blockquote><mark>Acme Corp </mark>supplies…</blockquote>`, // … and shows what lies inside, with 10 bytes of context
		"the bundle has no chunk nochunk",
		"malformed evidence reference",
		"<blockquote>…a form. <mark>ACME Inc.</mark> and Beta…</blockquote>",
	} {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}

func TestServer_Decisions(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	cases := []struct {
		name   string
		item   int
		action string
		form   url.Values
		check  func(*consolidate.Overrides) bool
		status string
	}{
		{
			name: "reject writes a cannot_link", item: itemLisbon, action: "reject",
			form: url.Values{"note": {"a depot is not the warehouse"}},
			check: func(o *consolidate.Overrides) bool {
				return len(o.CannotLink) == 1 && len(o.MustLink) == 0 &&
					o.CannotLink[0].A == "Lisbon warehouse" && o.CannotLink[0].B == "Lisbon depot" &&
					o.CannotLink[0].Note == "a depot is not the warehouse"
			},
			status: "rejected by ana at 2026-03-04T05:06:07Z: “a depot is not the warehouse”",
		},
		{
			name: "accept writes a must_link", item: itemBeta, action: "accept",
			check: func(o *consolidate.Overrides) bool {
				return len(o.MustLink) == 1 && len(o.CannotLink) == 0 && o.MustLink[0].A == "Beta Ltd" && o.MustLink[0].B == "Beta Limited"
			},
			status: "accepted by ana at 2026-03-04T05:06:07Z",
		},
		{
			name: "split writes a keep_apart", item: itemEvilNode, action: "split",
			form: url.Values{"member": {"<script>alert(1)</script>"}},
			check: func(o *consolidate.Overrides) bool {
				return len(o.KeepApart) == 1 && o.KeepApart[0].Name == "<script>alert(1)</script>"
			},
			status: "no member split off", // the node's status; the member shows its own
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, fixture(), review.Options{Now: func() time.Time { return at }})
			form := url.Values{"token": {e.token(t)}}
			for k, v := range c.form {
				form[k] = v
			}
			code, loc, body := e.post(t, fmt.Sprintf("/items/%d/%s", c.item, c.action), form)
			if code != http.StatusSeeOther || loc != fmt.Sprintf("/?page=1#item-%d", c.item) {
				t.Fatalf("POST = %d, Location %q\n%s", code, loc, body)
			}
			o, err := consolidate.LoadOverrides(e.overrides)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(o) {
				t.Errorf("overrides = %+v", o)
			}
			for _, d := range slices.Concat(linkDecisions(o.MustLink), linkDecisions(o.CannotLink), singleDecisions(o.KeepApart)) {
				if d.By != "ana" || d.At != "2026-03-04T05:06:07Z" {
					t.Errorf("decision stamped %+v", d)
				}
			}
			_, page := e.get(t, "/")
			if !strings.Contains(page, fmt.Sprintf(`data-testid="status-%d">%s</p>`, c.item, c.status)) {
				t.Errorf("the page does not show item %d as %q", c.item, c.status)
			}
			if c.action == "split" && !strings.Contains(page, fmt.Sprintf(`data-testid="status-%d-2">split off by ana`, c.item)) {
				t.Errorf("the page does not show the member split off")
			}
		})
	}
}

func linkDecisions(ls []consolidate.Link) []consolidate.Decision {
	var d []consolidate.Decision
	for _, l := range ls {
		d = append(d, l.Decision)
	}
	return d
}

func singleDecisions(ss []consolidate.Single) []consolidate.Decision {
	var d []consolidate.Decision
	for _, s := range ss {
		d = append(d, s.Decision)
	}
	return d
}

func TestServer_ChangingADecision(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := url.Values{"token": {e.token(t)}}
	for _, action := range []string{"accept", "reject"} {
		if code, _, body := e.post(t, fmt.Sprintf("/items/%d/%s", itemAcme, action), tok); code != http.StatusSeeOther {
			t.Fatalf("%s = %d\n%s", action, code, body)
		}
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.MustLink) != 0 || len(o.CannotLink) != 1 {
		t.Errorf("after accept then reject: %+v; want one cannot_link", o)
	}
}

func TestServer_BadRequests(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := e.token(t)
	cases := []struct {
		name, method, path string
		form               url.Values
		code               int
		says               string
	}{
		{"no token", "POST", "/items/1/accept", url.Values{}, http.StatusForbidden, "token is missing or stale"},
		{"bad token", "POST", "/items/1/accept", url.Values{"token": {"0123"}}, http.StatusForbidden, "reload the review page"},
		{"unknown item", "POST", "/items/99/reject", url.Values{"token": {tok}}, http.StatusNotFound, "no item &#34;99&#34;: this review has items 1 to 15"},
		{"item zero", "POST", "/items/0/reject", url.Values{"token": {tok}}, http.StatusNotFound, "no item"},
		{"item not a number", "POST", "/items/x/reject", url.Values{"token": {tok}}, http.StatusNotFound, "no item"},
		{"unknown action", "POST", "/items/1/merge", url.Values{"token": {tok}}, http.StatusNotFound, "unknown action &#34;merge&#34;"},
		{"GET on a decision", "GET", "/items/1/accept", nil, http.StatusMethodNotAllowed, "decisions are sent with POST"},
		{"split without member", "POST", "/items/6/split", url.Values{"token": {tok}}, http.StatusBadRequest, "the form has no member"},
		{"split of a stranger", "POST", "/items/6/split", url.Values{"token": {tok}, "member": {"Acme Corp"}}, http.StatusBadRequest, "is not one of its members"},
		{"accept a node", "POST", "/items/6/accept", url.Values{"token": {tok}}, http.StatusBadRequest, "is a node, not a pair"},
		{"bad page", "GET", "/?page=x", nil, http.StatusBadRequest, "want a page number"},
		{"page past the end", "GET", "/?page=2", nil, http.StatusNotFound, "there are 1 pages"},
		{"unknown path", "GET", "/nothing", nil, http.StatusNotFound, "no page /nothing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, e.url+c.path, strings.NewReader(c.form.Encode()))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.code || !strings.Contains(string(raw), c.says) {
				t.Errorf("%s %s = %d, want %d saying %q\n%s", c.method, c.path, resp.StatusCode, c.code, c.says, raw)
			}
		})
	}
	if _, err := os.Stat(e.overrides); !os.IsNotExist(err) {
		t.Errorf("a refused request wrote the overrides file (stat: %v)", err)
	}
}

func TestServer_KeepsHandEdits(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := url.Values{"token": {e.token(t)}}
	if code, _, body := e.post(t, "/items/1/accept", tok); code != http.StatusSeeOther {
		t.Fatalf("accept = %d\n%s", code, body)
	}
	// An expert edits the file by hand while the page is open.
	raw, err := os.ReadFile(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	hand := string(raw) + "rename:\n  - {member: Acme Corp, to: Acme Corporation}\n"
	if err := os.WriteFile(e.overrides, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, body := e.post(t, "/items/3/reject", tok); code != http.StatusSeeOther {
		t.Fatalf("reject = %d\n%s", code, body)
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.MustLink) != 1 || len(o.CannotLink) != 1 || len(o.Rename) != 1 || o.Rename[0].To != "Acme Corporation" {
		t.Errorf("overrides = %+v; want the hand edit kept beside both decisions", o)
	}
}

func TestServer_ConcurrentDecisions(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := e.token(t)
	posts := []string{"/items/1/reject", "/items/2/reject", "/items/3/accept", "/items/4/accept"}
	var wg sync.WaitGroup
	codes := make([]int, len(posts))
	for i, p := range posts {
		wg.Go(func() {
			resp, err := noRedirect.PostForm(e.url+p, url.Values{"token": {tok}})
			if err != nil {
				t.Error(err)
				return
			}
			codes[i] = resp.StatusCode
			_ = resp.Body.Close()
		})
	}
	wg.Wait()
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.CannotLink) != 2 || len(o.MustLink) != 2 {
		t.Errorf("codes %v, overrides %+v; want every decision kept", codes, o)
	}
}

func TestServer_BrokenOverridesFile(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := url.Values{"token": {e.token(t)}}
	if err := os.WriteFile(e.overrides, []byte("must_link: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, body := e.get(t, "/")
	if code != http.StatusOK || !strings.Contains(body, `data-testid="overrides-error"`) {
		t.Errorf("GET / with a broken overrides file = %d, no warning", code)
	}
	code, _, body = e.post(t, "/items/1/accept", tok)
	if code != http.StatusConflict || !strings.Contains(body, "fix the file by hand") {
		t.Errorf("POST with a broken overrides file = %d\n%s", code, body)
	}
	if raw, _ := os.ReadFile(e.overrides); string(raw) != "must_link: [\n" {
		t.Errorf("the broken file was overwritten: %q", raw)
	}
}

func TestNew_Refuses(t *testing.T) {
	b := writeBundle(t, fixture())
	dir := t.TempDir()
	bad := dir + "/bad.yaml"
	if err := os.WriteFile(bad, []byte("nonsense: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"no overrides":  "",
		"no directory":  dir + "/missing/overrides.yaml",
		"unknown field": bad,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := review.New(t.Context(), b, review.Options{Overrides: path}); err == nil {
				t.Error("New accepted it")
			}
		})
	}
}

func TestServer_Pages(t *testing.T) {
	c := fixture()
	// Sixty uncertain pairs more, so the fixture spans two pages of 50.
	for i := range 60 {
		a, b := "Station "+strconv.Itoa(2*i), "Station "+strconv.Itoa(2*i+1)
		c.Graph.MergeLinks = append(c.Graph.MergeLinks, kg.MergeLink{ClusterID: "x" + a, A: a, B: b, BCluster: "x" + b, Decision: "uncertain", Rule: "guard_number", Doubt: 0.5})
	}
	e := newEnv(t, c, review.Options{})
	if n := len(e.srv.Items()); n != 75 {
		t.Fatalf("%d items, want 75 (68 and a node item per node)", n)
	}
	_, body := e.get(t, "/?page=2")
	if !strings.Contains(body, "items 51–75 of 75 · page 2 of 2") || !strings.Contains(body, `data-testid="item-51"`) || strings.Contains(body, `data-testid="item-50"`) {
		t.Errorf("page 2 does not hold items 51 to 75")
	}
	tok := url.Values{"token": {e.token(t)}}
	if code, loc, _ := e.post(t, "/items/60/reject", tok); code != http.StatusSeeOther || loc != "/?page=2#item-60" {
		t.Errorf("POST = %d, Location %q; want back to page 2", code, loc)
	}
}

func TestServer_StaticAndHeaders(t *testing.T) {
	e := newEnv(t, bundle.Contents{}, review.Options{})
	for _, p := range []string{"/static/review.css", "/static/review.js"} {
		if code, body := e.get(t, p); code != http.StatusOK || len(body) < 100 {
			t.Errorf("GET %s = %d, %d bytes", p, code, len(body))
		}
	}
	resp, err := http.Get(e.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "form-action 'self'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	if _, body := e.get(t, "/"); !strings.Contains(body, `data-testid="empty"`) {
		t.Error("an empty merge log does not say so")
	}
}

// TestServe_StopsWithASpareConnectionOpen: a browser opens connections
// ahead of time and may send nothing on them; the page still stops
// without error when asked to (newEnv's cleanup checks Serve's error),
// instead of waiting them out, and closes them.
func TestServe_StopsWithASpareConnectionOpen(t *testing.T) {
	var spare net.Conn
	// Registered before newEnv's, so it runs after the page has stopped.
	t.Cleanup(func() {
		_ = spare.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := spare.Read(make([]byte, 1)); err == nil {
			t.Errorf("the spare connection is still open (read %d bytes)", n)
		}
		_ = spare.Close()
	})
	e := newEnv(t, fixture(), review.Options{})
	var err error
	if spare, err = net.Dial("tcp", e.addr); err != nil {
		t.Fatal(err)
	}
	// One request served, so the spare connection has been accepted by now.
	if code, _ := e.get(t, "/"); code != http.StatusOK {
		t.Fatalf("GET / = %d", code)
	}
}
