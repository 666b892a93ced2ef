package link

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"kgforge/internal/duck"
)

func TestDistinctValues_OneValuePerKeyAcrossSpellings(t *testing.T) {
	ctx := context.Background()
	db, err := duck.Open(ctx, filepath.Join(t.TempDir(), "v.duckdb"), duck.Settings{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE "sup pliers" (id INTEGER, name VARCHAR, "alias" VARCHAR)`,
		`INSERT INTO "sup pliers" VALUES
			(1, 'Kestrel Alloys', 'KA'), (2, 'KESTREL  ALLOYS', NULL), (3, 'Késtrel Alloys', 'Kestrel'),
			(4, 'O''Neil Parts', NULL), (5, 'ONeil Parts', NULL), (6, '---', NULL), (7, NULL, NULL),
			(8, 'Kestrel''s Alloys', NULL), (9, 'ﬁne Parts', NULL)`,
		`CREATE TABLE plants (code INTEGER, name VARCHAR)`,
		`INSERT INTO plants VALUES (1, 'Brno Assembly Plant'), (2, 'Brno')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := DistinctValues(ctx, db, []ValueColumn{
		{"sup pliers", "name"}, {"sup pliers", "alias"}, {"plants", "name"}, {"sup pliers", "name"}, {"plants", "code"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Value{
		{"plants", "code", "1", "1", 1}, {"plants", "code", "2", "2", 1},
		{"plants", "name", "brno", "Brno", 1}, {"plants", "name", "brno assembly plant", "Brno Assembly Plant", 1},
		{"sup pliers", "alias", "ka", "KA", 1}, {"sup pliers", "alias", "kestrel", "Kestrel", 1},
		{"sup pliers", "name", "fine parts", "ﬁne Parts", 1},
		{"sup pliers", "name", "kestrel alloys", "KESTREL  ALLOYS", 4},
		{"sup pliers", "name", "oneil parts", "O'Neil Parts", 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DistinctValues =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := DistinctValues(ctx, db, []ValueColumn{{"nope", "name"}}); err == nil {
		t.Error("a missing table gave no error")
	}
}
