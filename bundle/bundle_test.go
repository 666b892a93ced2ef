package bundle

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kgforge/internal/duck"
	"kgforge/kg"
)

func sample() Contents {
	src := kg.Source{ID: "s1", URI: "docs/a.md", Kind: kg.KindMarkdown, SHA256: "ab", Bytes: 42, Modified: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	ch := kg.Chunk{ID: "c1", SourceID: "s1", Text: "Velora buys frames.", Span: kg.Span{Start: 0, End: 19}, Section: "A"}
	tr := kg.Triplet{
		ID: "t1", ChunkID: "c1", Predicate: "buys", Evidence: "Velora buys frames.", EvidenceSpan: kg.Span{End: 19}, Confidence: 1,
		Subject: kg.Mention{Surface: "Velora", Type: "Company", Span: kg.Span{End: 6}}, Object: kg.Mention{Surface: "frames", Type: "Part", Span: kg.Span{Start: 12, End: 18}},
	}
	return Contents{
		Sources: []kg.Source{src}, Chunks: []kg.Chunk{ch}, Triplets: []kg.Triplet{tr},
		Tables: []kg.Table{{Name: "parts", Rows: 2}},
		Graph: kg.Graph{
			Nodes: []kg.Node{
				{ID: "n1", Name: "Velora", Kind: kg.NodeConcept, Labels: []string{"Entity", "Company"}, Aliases: []string{"velora"}, ChunkIDs: []string{"c1"}, Properties: map[string]string{"type": "Company"}},
				{ID: "n2", Name: "frames", Kind: kg.NodeConcept, Labels: []string{"Entity"}, ChunkIDs: []string{"c1"}},
			},
			Edges:  []kg.Edge{{ID: "e1", Src: "n1", Dst: "n2", Type: "buys", Confidence: 1, Evidence: "Velora buys frames.", ChunkIDs: []string{"c1"}}},
			Merges: []kg.MergeDecision{{ClusterID: "n1", Member: "velora", Canonical: "Velora", Score: 1, Rule: "exact", DecidedBy: "auto"}},
		},
	}
}

func write(t *testing.T, out, id string, c Contents) string {
	t.Helper()
	ctx := context.Background()
	w, err := Create(out, id)
	if err != nil {
		t.Fatal(err)
	}
	db, err := w.Data(ctx, duck.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE parts AS SELECT * FROM (VALUES ('P1', 3), ('P2', 4)) t(part_id, qty)"); err != nil {
		t.Fatal(err)
	}
	dir, err := w.Commit(c, Manifest{Pipeline: "example"})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWriterOpen_RoundTrip(t *testing.T) {
	ctx := context.Background()
	out := t.TempDir()
	c := sample()
	dir := write(t, out, "b1", c)
	if dir != filepath.Join(out, "b1") {
		t.Errorf("dir = %s", dir)
	}
	b, err := Open(out) // through the latest link
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	if b.Manifest.BuildID != "b1" || b.Manifest.Counts["nodes"] != 2 || b.Manifest.Counts["rows:parts"] != 2 {
		t.Errorf("manifest = %+v", b.Manifest)
	}
	var nodes []kg.Node
	if err := b.Nodes(ctx, func(n kg.Node) error { nodes = append(nodes, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nodes[0], c.Graph.Nodes[0]) {
		t.Errorf("node round trip\n got %+v\nwant %+v", nodes[0], c.Graph.Nodes[0])
	}
	var trs []kg.Triplet
	if err := b.Triplets(ctx, func(x kg.Triplet) error { trs = append(trs, x); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(trs, c.Triplets) {
		t.Errorf("triplets round trip\n got %+v\nwant %+v", trs, c.Triplets)
	}

	// Any downstream user reads the files with DuckDB alone.
	sb, err := b.Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	for table, want := range map[string]string{"nodes": "2", "edges": "1", "chunks": "1", "merges": "1", "parts": "2"} {
		_, rows, _, err := sb.Query(ctx, "SELECT count(*) FROM "+table, 1)
		if err != nil || rows[0][0] != want {
			t.Errorf("count(%s) = %v, %v; want %s", table, rows, err, want)
		}
	}
	_, rows, _, err := sb.Query(ctx, "SELECT labels[2], aliases[1] FROM nodes WHERE id = 'n1'", 1)
	if err != nil || rows[0][0] != "Company" || rows[0][1] != "velora" {
		t.Errorf("list columns: %v %v", rows, err)
	}

	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Errorf("temporary entry left behind: %s", e.Name())
		}
	}
	write(t, out, "b2", c)
	if b2, err := Open(out); err != nil || b2.Manifest.BuildID != "b2" {
		t.Errorf("latest after second build: %v %v", b2, err)
	}
	if _, err := Create(out, "b2"); err == nil {
		t.Error("Create over an existing build: want error")
	}
}

func TestOpen_RefusesDamagedBundles(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   error
	}{
		{"tampered file", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, EdgesFile), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString("x")
			_ = f.Close()
		}, ErrChecksum},
		{"missing file", func(_ *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, ChunksFile)) }, ErrInvalid},
		{"wrong version", func(t *testing.T, dir string) { editManifest(t, dir, func(m *Manifest) { m.Version = "2.0" }) }, ErrVersion},
		{"escaping name", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m *Manifest) { m.Files["../../etc/passwd"] = FileInfo{} })
		}, ErrEscape},
		{"unlisted required file", func(t *testing.T, dir string) { editManifest(t, dir, func(m *Manifest) { delete(m.Files, NodesFile) }) }, ErrInvalid},
		{"no manifest", func(_ *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, ManifestFile)) }, ErrInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := write(t, t.TempDir(), "b", sample())
			tc.damage(t, dir)
			_, err := Open(dir)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("err = %v, want %v naming %s", err, tc.want, dir)
			}
		})
	}
}

func editManifest(t *testing.T, dir string, fn func(*Manifest)) {
	t.Helper()
	p := filepath.Join(dir, ManifestFile)
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	fn(&m)
	raw, _ = json.Marshal(m)
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWriter_AbortLeavesNothing(t *testing.T) {
	out := t.TempDir()
	w, err := Create(out, "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Data(context.Background(), duck.Settings{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("after abort: %v", entries)
	}
	for _, bad := range []string{"", "..", "a/b", LatestLink} {
		if _, err := Create(out, bad); err == nil {
			t.Errorf("Create(%q): want error", bad)
		}
	}
}

func TestBundle_ReadFileStaysInside(t *testing.T) {
	b, err := Open(write(t, t.TempDir(), "b", sample()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	for _, name := range []string{"../b", "/etc/passwd", "a/../../x"} {
		if _, err := b.ReadFile(name, 10); !errors.Is(err, ErrEscape) {
			t.Errorf("ReadFile(%q): err = %v, want ErrEscape", name, err)
		}
	}
	got, err := b.ReadFile(ManifestFile, 1<<20)
	if err != nil || !strings.Contains(string(got), `"format": "kgforge-bundle"`) {
		t.Errorf("manifest: %v", err)
	}
}
