package tabular_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

var update = flag.Bool("update", false, "rewrite the generated fixtures of testdata/corpus (deliveries.csv, shipments.parquet)")

const corpus = "../../testdata/corpus"

// deliveries is testdata/corpus/deliveries.csv before it is written in
// Latin-1, as a spreadsheet on a Portuguese Windows desk would save it.
const deliveries = `delivery_id;supplier_id;part_id;quantity;delivered_on;origin
D-1001;S1;VC-FR-001;20;2025-03-04;Águeda
D-1002;S2;VC-FK-010;10;2025-03-06;Guimarães
D-1003;S2;VC-WH-020;12;2025-03-11;Vila Nova de Famalicão
D-1004;S1;VC-HB-040;40;2025-03-13;Águeda
D-1005;S2;VC-BR-030;30;2025-03-18;Guimarães
D-1006;S1;VC-SP-050;50;2025-03-20;São João da Madeira
D-1007;S2;VC-CH-060;80;2025-03-25;Braga
D-1008;S1;VC-PD-070;25;2025-03-27;Oliveira de Azeméis
`

// shipments makes testdata/corpus/shipments.parquet: spare parts Velora
// Cycles shipped from Porto to its dealers.
const shipments = `SELECT * FROM (VALUES
	('SH-2001', 'Ciclo Norte', 'VC-WH-020', 4, DATE '2025-04-01', 'Braga', 9.6),
	('SH-2002', 'Pedal Lisboa', 'VC-BR-030', 10, DATE '2025-04-02', 'Lisboa', 4.1),
	('SH-2003', 'Bicicletas do Minho', 'VC-CH-060', 25, DATE '2025-04-03', 'Viana do Castelo', 7.8),
	('SH-2004', 'Ciclo Norte', 'VC-FR-001', 2, DATE '2025-04-07', 'Braga', 4.4),
	('SH-2005', 'Rota Algarve', 'VC-SD-080', 6, DATE '2025-04-08', 'Faro', 2.3),
	('SH-2006', 'Pedal Lisboa', 'VC-FK-010', 3, DATE '2025-04-10', 'Lisboa', 1.9),
	('SH-2007', 'Coimbra Bikes', 'VC-HB-040', 8, DATE '2025-04-14', 'Coimbra', 2.6),
	('SH-2008', 'Bicicletas do Minho', 'VC-PD-070', 12, DATE '2025-04-15', 'Viana do Castelo', 4.8),
	('SH-2009', 'Rota Algarve', 'VC-SP-050', 9, DATE '2025-04-22', 'Faro', 2.7),
	('SH-2010', 'Coimbra Bikes', 'VC-WH-021', 2, DATE '2025-04-24', 'Coimbra', 5.2)
) t(shipment_id, dealer, part_id, quantity, shipped_on, destination, weight_kg)`

func TestCorpus_VeloraStock(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if *update {
		latin1, err := charmap.ISO8859_1.NewEncoder().String(deliveries)
		must(t, err)
		must(t, os.WriteFile(filepath.Join(corpus, "deliveries.csv"), []byte(latin1), 0o644))
		p := filepath.Join(corpus, "shipments.parquet")
		_, err = db.ExecContext(ctx, "COPY ("+shipments+") TO "+duck.QuoteString(p)+" (FORMAT parquet)")
		must(t, err)
	}
	var tables []kg.Table
	for _, f := range []struct {
		name string
		kind kg.SourceKind
	}{{"inventory.tsv", kg.KindCSV}, {"deliveries.csv", kg.KindCSV}, {"shipments.parquet", kg.KindParquet}} {
		p, err := filepath.Abs(filepath.Join(corpus, f.name))
		must(t, err)
		tb, err := ingest.LoadTables(ctx, db, ingest.TableInput{
			Source: kg.Source{ID: f.name, URI: "corpus/" + f.name, Kind: f.kind, Bytes: 1},
			Path:   p,
			Base:   ingest.TableName(f.name),
		})
		must(t, err)
		tables = append(tables, tb...)
	}
	inv, del, ship := tables[0], tables[1], tables[2]

	if inv.Rows != 11 || len(inv.Columns) != 5 {
		t.Errorf("inventory: %d rows, %d columns, want 11, 5", inv.Rows, len(inv.Columns))
	}
	wantWarn := []string{
		"read with delimiter tab, quote none, a header, encoding utf-8",
		"line 11: expected 5 columns, found 6 (row skipped)",
	}
	if !slices.Equal(inv.Warnings, wantWarn) {
		t.Errorf("inventory warnings = %q, want %q", inv.Warnings, wantWarn)
	}

	if del.Rows != 8 || len(del.Warnings) != 1 {
		t.Errorf("deliveries: %d rows, warnings %q, want 8 rows and the encoding warning", del.Rows, del.Warnings)
	}
	_, rows := contents(t, db, del.Name)
	var origins []string
	for _, r := range rows {
		origins = append(origins, r[5])
	}
	if want := []string{"Águeda", "Guimarães", "Vila Nova de Famalicão", "Águeda", "Guimarães", "São João da Madeira", "Braga", "Oliveira de Azeméis"}; !slices.Equal(origins, want) {
		t.Errorf("deliveries origins = %q, want %q", origins, want)
	}

	if ship.Rows != 10 || len(ship.Columns) != 7 || ship.Columns[4].Type != "DATE" {
		t.Errorf("shipments = %d rows, columns %+v", ship.Rows, ship.Columns)
	}

	must(t, ingest.FindKeys(ctx, db, tables))
	for _, tb := range []kg.Table{tables[1], tables[2]} {
		want := kg.ForeignKey{Column: "part_id", RefTable: "inventory", RefColumn: "part_id", Score: 1}
		if !slices.Contains(tb.ForeignKeys, want) {
			t.Errorf("%s foreign keys = %+v, want %+v", tb.Name, tb.ForeignKeys, want)
		}
	}
}
