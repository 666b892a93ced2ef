package bundle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kgforge/kg"
)

// sampleLinks has one link of each type and band; the first sets every
// field of kg.Link, so a field added without a column fails the round trip.
func sampleLinks() []kg.Link {
	supplier, suppliers := kg.ID("concept", "supplier"), kg.TableNodeID("suppliers")
	lead, leadCol := kg.ID("concept", "lead time"), kg.ColumnNodeID("parts", "lead_time_days")
	row := kg.ID("row", "suppliers", "S1")
	return []kg.Link{
		{
			ID: kg.EdgeID(supplier, kg.LinkRepresentedBy, suppliers), Src: supplier, SrcName: "supplier", Dst: suppliers,
			Target: "suppliers", Type: kg.LinkRepresentedBy, Score: 0.93, Signals: []string{"name_match", "cosine:0.83"},
			Band: kg.LinkBandLinked, Rule: "score_high", DecidedBy: "auto", Evidence: []string{"c1:0-19"},
		},
		{
			ID: kg.EdgeID(lead, kg.LinkMeasuredBy, leadCol), Src: lead, SrcName: "lead time | délai", Dst: leadCol,
			Target: "parts.lead_time_days", Type: kg.LinkMeasuredBy, Score: 0.61, Signals: []string{"cosine:0.61"},
			Band: kg.LinkBandUncertain, Rule: "score_uncertain", DecidedBy: "auto",
		},
		{
			ID: kg.EdgeID(row, kg.LinkRowOf, suppliers), Src: row, SrcName: "Kestrel Alloys", Dst: suppliers,
			Target: kg.RowTarget("suppliers", "S1"), Type: kg.LinkRowOf, Score: 1, Band: kg.LinkBandLinked,
			Rule: "row_entity", DecidedBy: "auto", Evidence: []string{"suppliers[S1]"},
		},
		{
			ID: kg.EdgeID("n1", kg.LinkSameAs, row), Src: "n1", SrcName: "Velora", Dst: row,
			Target: kg.RowTarget("suppliers", "S1"), Type: kg.LinkSameAs, Score: 0, Band: kg.LinkBandNone,
			Rule: "cannot_link", DecidedBy: "expert@example.com",
		},
	}
}

// TestLinks_RoundTripEveryField writes every link of the link log and
// reads each back whole, through Bundle.Links and through the SQL view.
func TestLinks_RoundTripEveryField(t *testing.T) {
	want := sampleLinks()
	v := reflect.ValueOf(want[0])
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("sampleLinks()[0] leaves kg.Link.%s empty: set it, so the round trip covers it", v.Type().Field(i).Name)
		}
	}
	c := sample()
	c.Graph.Links = want
	b := openT(t, write(t, t.TempDir(), "b", c))
	if got := b.Manifest.Counts["links"]; got != int64(len(want)) {
		t.Errorf("manifest counts links = %d, want %d", got, len(want))
	}
	var got []kg.Link
	ctx := context.Background()
	if err := b.Links(ctx, func(l kg.Link) error { got = append(got, l); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range want { // the reader gives empty lists, never nil ones
		if want[i].Signals == nil {
			want[i].Signals = []string{}
		}
		if want[i].Evidence == nil {
			want[i].Evidence = []string{}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links round trip\n got %+v\nwant %+v", got, want)
	}
	sb, err := b.Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Close() })
	_, rows, _, err := sb.Query(ctx, "SELECT target, signals[2] FROM links WHERE band = 'linked' AND type = 'REPRESENTED_BY'", 10)
	if err != nil || len(rows) != 1 || rows[0][0] != "suppliers" || rows[0][1] != "cosine:0.83" {
		t.Errorf("links in the SQL view: %v, %v", rows, err)
	}
}

// TestLinks_EmptyLogIsWritten checks that a build without links still
// writes links.parquet, with its schema and no rows.
func TestLinks_EmptyLogIsWritten(t *testing.T) {
	b := openT(t, write(t, t.TempDir(), "b", sample()))
	if _, ok := b.Manifest.Files[LinksFile]; !ok {
		t.Fatalf("manifest lists no %s", LinksFile)
	}
	n := 0
	if err := b.Links(context.Background(), func(kg.Link) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("links of a build without any: %d, %v", n, err)
	}
}

// TestOpen_LinksByVersion checks that a 1.3 bundle, which has no link log,
// still opens and reads as one without links, and that a manifest of 1.4
// or later that lists no links.parquet is refused.
func TestOpen_LinksByVersion(t *testing.T) {
	c := sample()
	c.Graph.MergeLinks = []kg.MergeLink{{ClusterID: "n1", A: "Velora", B: "velora", BCluster: "n1", Band: "high", Decision: "merged"}}
	dir := write(t, t.TempDir(), "b", c)
	if err := os.Remove(filepath.Join(dir, LinksFile)); err != nil {
		t.Fatal(err)
	}
	editManifest(t, dir, func(m *Manifest) {
		delete(m.Files, LinksFile)
		delete(m.Counts, "links")
	})
	if _, err := Open(dir); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lists no "+LinksFile) {
		t.Errorf("Open of a %s manifest without %s: %v", Version, LinksFile, err)
	}
	editManifest(t, dir, func(m *Manifest) { m.Version = "1.3" })
	b := openT(t, dir)
	ctx := context.Background()
	n := 0
	if err := b.Links(ctx, func(kg.Link) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("links of a 1.3 bundle: %d, %v", n, err)
	}
	var merges []kg.MergeLink
	if err := b.MergeLinks(ctx, func(l kg.MergeLink) error { merges = append(merges, l); return nil }); err != nil || len(merges) != 1 {
		t.Errorf("merge links of a 1.3 bundle: %v, %v", merges, err)
	}
	sb, err := b.Sandbox(ctx)
	if err != nil {
		t.Fatalf("sandbox of a 1.3 bundle: %v", err)
	}
	_ = sb.Close()
}

// TestWriter_LinkReport checks that the link report is a file of the
// bundle when there is one, and that no file is written when it is empty.
func TestWriter_LinkReport(t *testing.T) {
	c := sample()
	c.LinkReport = "# Link report\n"
	b := openT(t, write(t, t.TempDir(), "b", c))
	raw, err := b.ReadFile(LinkReportFile, 1<<20)
	if err != nil || string(raw) != c.LinkReport {
		t.Errorf("%s = %q, %v", LinkReportFile, raw, err)
	}
	b = openT(t, write(t, t.TempDir(), "b", sample()))
	if _, ok := b.Manifest.Files[LinkReportFile]; ok {
		t.Errorf("a bundle without a link report lists %s", LinkReportFile)
	}
}
