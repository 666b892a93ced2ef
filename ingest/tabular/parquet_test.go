package tabular_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func TestLoadTables_ParquetRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	p := filepath.Join(t.TempDir(), "shipments.parquet")
	_, err := db.ExecContext(ctx, `COPY (
		SELECT * FROM (VALUES
			(1, 'SH-001', 'Águeda', DATE '2025-04-01', 12.5, true),
			(2, 'SH-002', 'Guimarães', DATE '2025-04-02', NULL, false)
		) t(n, shipment_id, city, shipped_on, weight_kg, insured)
	) TO `+duck.QuoteString(p)+` (FORMAT parquet)`)
	must(t, err)
	tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{
		Source: kg.Source{ID: "s", URI: "shipments.parquet", Kind: kg.KindParquet, Bytes: 1},
		Path:   p,
		Base:   "shipments",
	})
	must(t, err)
	if len(tables) != 1 || tables[0].Rows != 2 || len(tables[0].Warnings) != 0 {
		t.Fatalf("tables = %+v", tables)
	}
	var types []string
	for _, c := range tables[0].Columns {
		types = append(types, c.Name+" "+c.Type)
	}
	want := []string{"n INTEGER", "shipment_id VARCHAR", "city VARCHAR", "shipped_on DATE", "weight_kg DECIMAL(3,1)", "insured BOOLEAN"}
	if !slices.Equal(types, want) {
		t.Errorf("columns = %q, want %q", types, want)
	}
	_, rows := contents(t, db, tables[0].Name)
	wantRows := [][]string{{"1", "SH-001", "Águeda", "2025-04-01", "12.5", "true"}, {"2", "SH-002", "Guimarães", "2025-04-02", "", "false"}}
	if !slices.EqualFunc(rows, wantRows, slices.Equal) {
		t.Errorf("rows = %q, want %q", rows, wantRows)
	}
}

func TestLoadTables_ParquetCorruptRejected(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	good := filepath.Join(t.TempDir(), "good.parquet")
	_, err := db.ExecContext(ctx, "COPY (SELECT range AS id, 'part ' || range AS name FROM range(1000)) TO "+duck.QuoteString(good)+" (FORMAT parquet)")
	must(t, err)
	data, err := os.ReadFile(good)
	must(t, err)
	zeroedFooter := slices.Clone(data)
	clear(zeroedFooter[len(zeroedFooter)-8 : len(zeroedFooter)-4])
	scrambled := slices.Clone(data)
	for i := 4; i < len(scrambled)/2; i += 3 {
		scrambled[i] ^= 0x5A
	}
	tests := map[string][]byte{
		"scrambled_pages.parquet": scrambled,
		"magic_only.parquet":      []byte("PAR1"),
		"garbage.parquet":         []byte("PAR1 this is not a parquet file, only its magic PAR1"),
		"truncated.parquet":       data[:len(data)/2],
		"zeroed_footer.parquet":   zeroedFooter,
	}
	for name, bad := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := loadFile(t, db, name, kg.KindParquet, bad)
			if !errors.Is(err, kg.ErrRejected) {
				t.Fatalf("err = %v, want kg.ErrRejected", err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "source "+name+": ") || strings.Contains(msg, os.TempDir()) {
				t.Errorf("err = %q, want it to name the source, not the local path", msg)
			}
		})
	}
}
