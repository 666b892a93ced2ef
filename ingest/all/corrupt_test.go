package all_test

import (
	"context"
	"encoding/binary"
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

// TestLoadTables_CorruptFileRejectionSaysWhatIsWrong damages the corpus's
// table files (truncated, a bad footer or header, wrong magic bytes, a bad
// block or page, empty) and checks that each is rejected alone with a
// message that names the source, not its local path, says in words what is
// wrong, and keeps the reader's own message as detail.
func TestLoadTables_CorruptFileRejectionSaysWhatIsWrong(t *testing.T) {
	ctx := context.Background()
	dir := corpusDir(t)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pq, lite, ddb, book := read("shipments.parquet"), read("erp.sqlite"), read("warehouse.duckdb"), read("production.xlsx")
	// A Parquet file ends with its footer, the footer's length and PAR1.
	footer := len(pq) - 8 - int(binary.LittleEndian.Uint32(pq[len(pq)-8:]))
	edit := func(data []byte, f func(b []byte)) []byte {
		b := slices.Clone(data)
		f(b)
		return b
	}
	xor := func(from, to, step int) func([]byte) {
		return func(b []byte) {
			for i := from; i < to; i += step {
				b[i] ^= 0x5A
			}
		}
	}
	cases := []struct {
		name   string
		kind   kg.SourceKind
		data   []byte
		want   string // what is wrong, in words
		detail string // the reader's own message, kept
	}{
		{"truncated.parquet", kg.KindParquet, pq[:len(pq)/2], "not a Parquet file, or one cut short: it does not end with Parquet's magic bytes PAR1", "(DuckDB: Invalid Input Error: No magic bytes found at end of file 'data/truncated.parquet')"},
		{"bad_footer.parquet", kg.KindParquet, edit(pq, xor(footer, len(pq)-8, 7)), "not a readable Parquet file: its footer is corrupt or the file is truncated", "(DuckDB: Invalid Error: "},
		{"wrong_magic.parquet", kg.KindParquet, edit(pq, func(b []byte) { copy(b[len(b)-4:], "PAR0") }), "it does not end with Parquet's magic bytes PAR1", "(DuckDB: "},
		{"bad_pages.parquet", kg.KindParquet, edit(pq, xor(4, footer, 3)), "not a readable Parquet file: its footer reads but its data does not", "(DuckDB: "},
		{"empty.parquet", kg.KindParquet, nil, "not a Parquet file: it is empty or too short to hold one", "too small to be a Parquet file"},
		{"truncated.sqlite", kg.KindSQLite, lite[:len(lite)/2], "not a readable SQLite database file: it is corrupt or truncated", "(SQLite: "},
		{"wrong_magic.sqlite", kg.KindSQLite, edit(lite, func(b []byte) { copy(b, "Not SQLite at al") }), "not an SQLite database file: it does not start with SQLite's header", "file is not a database"},
		{"empty.sqlite", kg.KindSQLite, nil, "the file is empty, not an SQLite database", ""},
		{"truncated.duckdb", kg.KindDuckDB, ddb[:len(ddb)/2], "not a readable DuckDB database file: it is truncated", "(DuckDB: IO Error: Could not read enough bytes from file \"data/truncated.duckdb\""},
		{"wrong_magic.duckdb", kg.KindDuckDB, edit(ddb, func(b []byte) { copy(b[8:12], "DUCX") }), "not a DuckDB database file: it does not start with DuckDB's header", "(DuckDB: "},
		{"bad_block.duckdb", kg.KindDuckDB, edit(ddb, xor(12288+64, 12288+72, 1)), "not a readable DuckDB database file: it is corrupt (a block fails its checksum)", "(DuckDB: IO Error: Corrupt database file"},
		{"not_zip.xlsx", kg.KindXLSX, []byte("batch_id,units\nB-1,4\n"), "not an xlsx workbook: the file is not a zip container", "(zip: "},
		{"truncated.xlsx", kg.KindXLSX, book[:len(book)/2], "not a readable xlsx workbook: its zip container is truncated or corrupt", "(zip: "},
	}
	db, err := duck.Open(ctx, filepath.Join(t.TempDir(), "build.duckdb"), duck.Settings{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			if err := os.WriteFile(path, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			uri := "data/" + c.name
			_, err := ingest.LoadTables(ctx, db, ingest.TableInput{
				Source: kg.Source{ID: c.name, URI: uri, Kind: c.kind, Bytes: int64(len(c.data))},
				Path:   path, Base: ingest.TableName(c.name),
			})
			if !errors.Is(err, kg.ErrRejected) {
				t.Fatalf("err = %v, want a rejection (kg.ErrRejected)", err)
			}
			msg := err.Error()
			if prefix := "source " + uri + ": rejected: "; !strings.HasPrefix(msg, prefix) {
				t.Errorf("err = %q\nwant it to start %q", msg, prefix)
			}
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, c.detail) {
				t.Errorf("err = %q\nwant it to say %q, with the detail %q", msg, c.want, c.detail)
			}
			if strings.Contains(msg, filepath.Dir(path)) {
				t.Errorf("err = %q names the local path, not the source", msg)
			}
		})
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d tables left behind (%v)", n, err)
	}
}
