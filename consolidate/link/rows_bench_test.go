package link

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRows reads a table of DefaultMaxRowEntities rows of six columns
// into row entities.
func BenchmarkRows(b *testing.B) {
	var csv strings.Builder
	csv.WriteString("item_id,name,category,price,weight_kg,notes\n")
	for i := range DefaultMaxRowEntities {
		fmt.Fprintf(&csv, "I%05d,Item number %d,cat%d,%d.5,%d,note %d\n", i, i, i%20, i, i%7, i)
	}
	db, tables := loadCSV(b, "items.csv", csv.String())
	b.ResetTimer()
	for b.Loop() {
		rs, err := Rows(context.Background(), db, tables, Config{})
		if err != nil || len(rs.Nodes) != DefaultMaxRowEntities {
			b.Fatalf("%d nodes, %v", len(rs.Nodes), err)
		}
	}
}
