package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kgforge/llm"
	"kgforge/pipelines"
	"kgforge/stages"
)

// TestNameOnlyBuildOfTheExampleLinksEveryRow builds the example with
// extract.skip (the model server here answers nothing: any call would fail
// the build), reads the real bundle back and scores it: every gold row is
// a row entity and every FK an edge, nothing else is, the Kestrel
// duplicate is one node, and no chunk → row mention is wrong.
func TestNameOnlyBuildOfTheExampleLinksEveryRow(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err := llm.New(llm.Options{Host: srv.URL, BaseDelay: time.Millisecond, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p, err := pipelines.Load("../../pipelines/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p.Extract.Skip = true
	ctx := context.Background()
	rep, err := (&stages.Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir()}).Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadBundle(ctx, rep.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	r := ScoreBundle(loadGold(t), d, 10)
	for _, kind := range []string{KindRowEntity, KindFK} {
		if s := scoreOf(t, r, kind); s.Precision != 1 || s.Recall != 1 {
			t.Errorf("%s: P %.2f R %.2f; want 1 and 1 (wrong %v, missed %v)", kind, s.Precision, s.Recall, s.Wrong, s.Missed)
		}
	}
	if s := scoreOf(t, r, KindMentions); s.FP != 0 || s.Found == 0 {
		t.Errorf("mentions: %d wrong, %d found; want none wrong and some found (wrong %v)", s.FP, s.Found, s.Wrong)
	}
	if g := group(t, r.Duplicates, "Kestrel Alloys Ltd."); g.State != StateOneNode {
		t.Errorf("Kestrel Alloys Ltd. / Kestrel Alloys: %s (%s); want one node", g.State, g.Detail)
	}
	if !d.HasLinkLog || len(d.Links) == 0 {
		t.Errorf("the bundle's link log was not read: %v, %d links", d.HasLinkLog, len(d.Links))
	}
}
