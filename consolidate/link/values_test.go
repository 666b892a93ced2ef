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
	defer func() { _ = db.Close() }()
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
		{"plants", "code", "1", "1", 1},
		{"plants", "code", "2", "2", 1},
		{"plants", "name", "brno", "Brno", 1},
		{"plants", "name", "brno assembly plant", "Brno Assembly Plant", 1},
		{"sup pliers", "alias", "ka", "KA", 1},
		{"sup pliers", "alias", "kestrel", "Kestrel", 1},
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

func TestValueIndex_MatchesNamesByKeyWithOrWithoutLegalForm(t *testing.T) {
	ix := NewValueIndex([]Value{
		{Table: "suppliers", Column: "name", Key: "kestrel alloys", Value: "Kestrel Alloys", Rows: 1},
		{Table: "orders", Column: "customer", Key: "kestrel alloys", Value: "KESTREL ALLOYS", Rows: 9},
		{Table: "suppliers", Column: "name", Key: "techchip", Value: "TechChip", Rows: 1},
		{Table: "plants", Column: "name", Key: "brno works gmbh", Value: "Brno Works GmbH", Rows: 1},
	})
	for _, tc := range []struct {
		name string
		want int
	}{{"Kestrel Alloys Ltd.", 2}, {"kestrel  alloys", 2}, {"TechChip Inc", 1}, {"Brno Works", 1}, {"Brno Works S.A.", 1}, {"Kestrel", 0}, {"", 0}} {
		if got := ix.Match(tc.name); len(got) != tc.want {
			t.Errorf("Match(%q) = %v, want %d values", tc.name, got, tc.want)
		}
	}
}
