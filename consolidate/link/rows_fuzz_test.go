package link

import (
	"strings"
	"testing"
	"unicode"

	"kgforge/kg"
)

// FuzzNames feeds any table and column name to the naming rules: they never
// panic, a type is never empty, an edge type is upper case letters, digits
// and underscores after HAS_ or a verb, and a name-like or key-like test
// of any samples returns.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"suppliers", "categories", "purchase_orders", "İIES", "ies", "supplier_id", "Plant No", "", "_", "ſtatuſes", "K\u212aies"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, table, col string) {
		if typ := TypeName(table); typ == "" {
			t.Errorf("TypeName(%q) is empty", table)
		}
		_ = Singular(table)
		et := EdgeType(col)
		if (!strings.HasPrefix(et, "HAS_") && !strings.HasSuffix(et, "_BY") && et != "ASSIGNED_TO") || et == "HAS_" {
			t.Errorf("EdgeType(%q) = %q", col, et)
		}
		if strings.ContainsFunc(et, func(r rune) bool { return r != '_' && !unicode.IsDigit(r) && !unicode.IsLetter(r) }) {
			t.Errorf("EdgeType(%q) = %q holds more than letters, digits and _", col, et)
		}
		_ = keyLike(col)
		_ = nameHinted(col)
		_ = nameLike(kg.Column{Name: col, Type: "VARCHAR", Distinct: 3, Samples: []string{table, col}}, 3)
	})
}
