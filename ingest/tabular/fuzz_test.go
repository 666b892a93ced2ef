package tabular_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

// FuzzLoadCSV loads random bytes through the CSV loader into DuckDB: every
// input gives a table or an error that wraps kg.ErrRejected and names the
// source, never a panic or a bare error.
func FuzzLoadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n",
		"id;name\n1;\xC1gueda\n",
		"\xEF\xBB\xBFid,city\n1,Águeda\n",
		"\xFF\xFEi\x00d\x00\n\x001\x00\n\x00",
		"\xFE\xFF\x00i\x00d\x00\n\x001\x00\n",
		"a,b,c\n1,2,3\n4,5\n6,7,8,9\n",
		"a,b,c\n1\n2,3,4,5\n",
		"a,b\n1,\"multi\nline\"\n2,3,4\n",
		"\"unterminated,1\n2,3\n",
		"a\tb\n1\t2\n",
		"x\n1\nn/a\n",
		"",
		"\n\n",
		"\x00\x01",
	} {
		f.Add([]byte(s))
	}
	ctx := context.Background()
	db, err := duck.Open(ctx, "", duck.Settings{Threads: 1, MemoryLimit: "256MB"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = db.Close() })
	path := filepath.Join(f.TempDir(), "in.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			t.Skip("kept small so that each run is fast")
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		tables, err := ingest.LoadTables(ctx, db, ingest.TableInput{
			Source: kg.Source{ID: "in", URI: "in.csv", Kind: kg.KindCSV, Bytes: int64(len(data))},
			Path:   path,
			Base:   "t",
			Name:   func(string) string { return "t" },
		})
		if err != nil {
			if !errors.Is(err, kg.ErrRejected) || !strings.HasPrefix(err.Error(), "source in.csv: ") {
				t.Fatalf("err = %v, want a rejection naming the source", err)
			}
			var n int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 't'").Scan(&n); err != nil || n != 0 {
				t.Fatalf("rejected, but table t is left (%d, %v)", n, err)
			}
			return
		}
		if len(tables) != 1 || tables[0].Rows < 0 || len(tables[0].Columns) == 0 {
			t.Fatalf("tables = %+v", tables)
		}
		if _, err := db.ExecContext(ctx, "DROP TABLE t"); err != nil {
			t.Fatal(err)
		}
	})
}
