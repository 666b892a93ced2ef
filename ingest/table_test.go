package ingest

import "testing"

func TestNameScore(t *testing.T) {
	cases := []struct {
		col, table, key string
		want            float64
	}{
		{"supplier_id", "suppliers", "supplier_id", 1},
		{"SupplierID", "suppliers", "supplier_id", 1},
		{"customer_id", "customers", "id", 1},
		{"category_id", "categories", "id", 1},
		{"customer_id", "orders", "id", 0},
		{"main_supplier_id", "suppliers", "supplier_id", 0.8},
		{"supplier", "suppliers", "supplier_id", 0.8},
		{"unit_cost_eur", "parts", "part_id", 0},
		{"part_name", "parts", "part_id", 1.0 / 2},
		{"name", "parts", "part_id", 0},
	}
	for _, c := range cases {
		if got := NameScore(c.col, c.table, c.key); got != c.want {
			t.Errorf("NameScore(%q, %q, %q) = %v, want %v", c.col, c.table, c.key, got, c.want)
		}
	}
}
