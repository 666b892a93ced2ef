package stages

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/llm"
	"kgforge/pipelines"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeOllama answers like Ollama: it lists model "m" and, for a chat, states
// one fact from the first evidence sentence its schema offers. block makes
// chats wait until the request is cancelled.
func fakeOllama(t *testing.T, block bool) (*llm.Client, *atomic.Int32) {
	t.Helper()
	var chats atomic.Int32
	srv := httptest.NewServer(fakeOllamaHandler(&chats, block))
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Options{Host: srv.URL, BaseDelay: time.Millisecond, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, &chats
}

// fakeOllamaHandler is fakeOllama's server, counting chats.
func fakeOllamaHandler(chats *atomic.Int32, block bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			_, _ = io.WriteString(w, `{"models":[{"name":"m","model":"m","digest":"d1"}]}`)
		case "/api/show": // a chat model: it has a template (extract.mode auto picks chat)
			_, _ = io.WriteString(w, `{"template":"{{ range .Messages }}{{ .Content }}{{ end }}","capabilities":["completion"]}`)
		case "/api/chat":
			chats.Add(1)
			if block {
				// The server notices a client that went away only once
				// the body is read.
				_, _ = io.Copy(io.Discard, r.Body)
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
				return
			}
			var req struct {
				Format struct {
					Properties struct {
						Triplets struct {
							Items struct {
								Properties struct {
									Evidence struct{ Enum []string }
								}
							}
						}
					}
				}
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			ev := req.Format.Properties.Triplets.Items.Properties.Evidence.Enum[0]
			words := strings.Fields(strings.Trim(ev, ".# "))
			reply, _ := json.Marshal(map[string]any{"triplets": []map[string]string{{
				"evidence": ev, "subject": words[0], "subject_type": "thing", "predicate": "relates to",
				"object": words[len(words)-1], "object_type": "thing",
			}}})
			out, _ := json.Marshal(map[string]any{
				"model": "m", "done": true, "done_reason": "stop", "eval_count": 5, "total_duration": int64(time.Millisecond),
				"message": map[string]string{"role": "assistant", "content": string(reply)},
			})
			_, _ = w.Write(append(out, '\n'))
		default:
			http.NotFound(w, r)
		}
	})
}

func corpus(t *testing.T) (*pipelines.Pipeline, string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"docs/a.md":      "# Suppliers\nVelora Cycles buys frames from Kestrel Alloys.\n\n# Plants\nThe Porto plant assembles the Trail bike.\n",
		"docs/b.txt":     "\x7fELF\x00\x00binary",
		"data/parts.csv": "part_id,name\nP1,Frame\nP2,Wheel\n",
		"data/empty.csv": "",
		"docs/c.txt":     "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n",          // a PDF named .txt
		"docs/d.txt":     "caf\xe9 cr\xe8me br\xfbl\xe9e is on the menu.\n", // Latin-1, not UTF-8
		"docs/e.md":      strings.Repeat("Too long. ", 20_000),              // over limits.max_text_bytes
		"data/f.xlsx":    "not a workbook at all",
		"docs/bomb.docx": string(zipBomb(t)),
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	raw := `name: t
sources:
  - {name: docs, paths: ["docs/*"]}
  - {name: tables, paths: ["data/*.csv", "data/*.xlsx"]}
llm: {chat_model: m}
limits: {max_text_bytes: 100000}
resolve: {embeddings: false} # the fake server has no embedding model
`
	pf := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	return p, dir
}

// zipBomb returns a DOCX-shaped zip whose document part expands 50 MB of
// zeros from a few kilobytes.
func zipBomb(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("word/document.xml")
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range 50 {
		if _, err := w.Write(zeros); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRunner_BadSourcesFailAloneAndReRunsUseTheCache(t *testing.T) {
	c, chats := fakeOllama(t, false)
	p, _ := corpus(t)
	out := t.TempDir()
	prog := &ProgressCounts{}
	rn := &Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out, Progress: prog}
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"docs/b.txt":     "binary",
		"data/empty.csv": "empty file",
		"docs/c.txt":     "content is pdf but the file name says text",
		"docs/d.txt":     "invalid UTF-8 at byte 3",
		"docs/e.md":      "over the limit of 100000",
		"data/f.xlsx":    "not a xlsx file",
		"docs/bomb.docx": "zip bomb",
	}
	if rep.Status != StatusPartial || len(rep.Rejected) != len(want) {
		t.Fatalf("status %s, rejected %+v; want partial with %d rejections", rep.Status, rep.Rejected, len(want))
	}
	for item, reason := range want {
		found := false
		for _, rj := range rep.Rejected {
			found = found || (rj.Item == item && strings.Contains(rj.Reason, item) && strings.Contains(rj.Reason, reason))
		}
		if !found {
			t.Errorf("no rejection of %s saying %q in %+v", item, reason, rep.Rejected)
		}
	}
	if c := prog.Counts(); c.Queued != 2 || c.Done != 2 {
		t.Errorf("progress: %d queued, %d done; want 2 and 2", c.Queued, c.Done)
	}
	if c := prog.Counts(); c.Sources != 9 || c.SourcesDone != 9 {
		t.Errorf("progress: %d of %d sources done; want all nine files of the corpus, rejected ones too", c.SourcesDone, c.Sources)
	}
	if rep.LLM.ServerDuration != 2*time.Millisecond || rep.ServerBusy <= 0 || rep.ServerBusy > 1 {
		t.Errorf("server time %v, busy %v; want 2ms and a share in (0, 1]", rep.LLM.ServerDuration, rep.ServerBusy)
	}
	if rep.Chunks != 2 || rep.Tables != 1 || rep.Triplets != 2 || chats.Load() != 2 {
		t.Errorf("report: %d chunks %d tables %d triplets %d chats", rep.Chunks, rep.Tables, rep.Triplets, chats.Load())
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if b.Manifest.Counts["triplets"] != 2 || b.Manifest.Counts["rows:parts"] != 2 || b.Manifest.Models["chat"].Digest != "d1" {
		t.Errorf("manifest: %+v", b.Manifest)
	}
	if _, err := os.Stat(filepath.Join(out, "reports", rep.BuildID+".json")); err != nil {
		t.Errorf("run report: %v", err)
	}

	again, err := rn.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if chats.Load() != 2 || again.Plan.ChunksReused != 2 || again.Triplets != 2 {
		t.Errorf("second run: %d chats in all, %d chunks reused", chats.Load(), again.Plan.ChunksReused)
	}
}

func TestRunner_FatalErrorsPublishNothing(t *testing.T) {
	cases := []struct {
		name   string
		model  string
		block  bool
		cancel time.Duration
	}{
		{"missing model", "nope", false, 0},
		{"cancelled mid-extraction", "m", true, 200 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := fakeOllama(t, tc.block)
			p, _ := corpus(t)
			p.LLM.ChatModel = tc.model
			out := t.TempDir()
			ctx := context.Background()
			if tc.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.cancel)
				defer cancel()
			}
			_, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(ctx, p)
			if err == nil {
				t.Fatal("want error")
			}
			if tc.model == "nope" && !errors.Is(err, llm.ErrModelMissing) {
				t.Errorf("err = %v, want ErrModelMissing", err)
			}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				if e.Name() != StateDir { // the units it finished, for the next build
					t.Errorf("output after a failed run: %v", e)
				}
			}
		})
	}
}

func TestDiskCache(t *testing.T) {
	c, err := OpenDiskCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Repeat("ab", 16)
	if _, ok := c.Get(key); ok {
		t.Error("empty cache hit")
	}
	if err := c.Put(key, []byte("v1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(key, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Get(key); !ok || string(v) != "v2" {
		t.Errorf("Get = %q %v", v, ok)
	}
	for _, bad := range []string{"../../etc/passwd", "", "ZZZZZZZZZZ"} {
		if err := c.Put(bad, nil); err == nil {
			t.Errorf("Put(%q): want error", bad)
		}
	}
}

// TestRunner_PostgresSource builds a pipeline whose tables come from a real
// PostgreSQL server (make test starts one) beside a CSV file, and one whose
// server cannot be reached: that source fails alone, without its password
// in the report.
func TestRunner_PostgresSource(t *testing.T) {
	dsn := os.Getenv("KGFORGE_TEST_PG_DSN")
	if dsn == "" {
		if os.Getenv("KGFORGE_INTEGRATION") != "" {
			t.Fatal("KGFORGE_INTEGRATION is set but KGFORGE_TEST_PG_DSN is not (scripts/postgres.sh env)")
		}
		t.Skip("KGFORGE_TEST_PG_DSN not set; run make test")
	}
	c, _ := fakeOllama(t, false)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "suppliers.csv"), []byte("supplier_id,name\nS001,Kestrel Alloys\nS004,Serra Brakes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KGFORGE_ERP_DSN", dsn)
	t.Setenv("KGFORGE_DOWN_DSN", "postgres://kg:s3cret-pw@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	raw := `name: pg
sources:
  - {name: tables, paths: ["*.csv"]}
  - name: erp
    kind: postgres
    connection_env: KGFORGE_ERP_DSN
    query: "SELECT * FROM (VALUES ('PO-1', 'S001', 240), ('PO-2', 'S004', 300)) AS t(po_id, supplier_id, qty)"
  - {name: down, kind: postgres, connection_env: KGFORGE_DOWN_DSN}
llm: {chat_model: m}
resolve: {embeddings: false}
`
	pf := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != StatusPartial || len(rep.Rejected) != 1 || rep.Rejected[0].Item != "postgres:down" {
		t.Fatalf("status %s, rejected %+v; want the unreachable server rejected alone", rep.Status, rep.Rejected)
	}
	if strings.Contains(rep.Rejected[0].Reason, "s3cret-pw") {
		t.Errorf("the rejection shows the password: %s", rep.Rejected[0].Reason)
	}
	b, err := bundle.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if b.Manifest.Counts["rows:erp"] != 2 || b.Manifest.Counts["rows:suppliers"] != 2 {
		t.Fatalf("manifest counts %v, want erp and suppliers with 2 rows", b.Manifest.Counts)
	}
	tables, err := b.Tables()
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == "erp" && (len(tb.ForeignKeys) != 1 || tb.ForeignKeys[0].RefTable != "suppliers") {
			t.Errorf("erp foreign keys %+v, want supplier_id -> suppliers", tb.ForeignKeys)
		}
	}
}

// TestRunner_ExtractSkipAsksTheModelNothing: with extract.skip the build
// ingests and chunks as always, sends no chunk to the chat model (the
// server here answers nothing: any call would fail the build) and still
// writes a bundle of the tables and chunks.
func TestRunner_ExtractSkipAsksTheModelNothing(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err := llm.New(llm.Options{Host: srv.URL, BaseDelay: time.Millisecond, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p, _ := corpus(t)
	p.Extract.Skip = true
	out := t.TempDir()
	rep, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: out}).Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Chunks != 2 || rep.Tables != 1 || rep.Triplets != 0 || rep.LLM.Calls != 0 || rep.Bundle == "" {
		t.Errorf("report: %d chunks %d tables %d triplets %d calls, bundle %q; want 2, 1, 0, 0 and a bundle",
			rep.Chunks, rep.Tables, rep.Triplets, rep.LLM.Calls, rep.Bundle)
	}
}
