package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"kgforge/internal/duck"
)

// TestSelect_AnswersTheExampleWithoutSQL runs typed queries on the
// example bundle (real tables, real keys found by the loader, DuckDB's
// sandbox): a filter through a join the keys give, a count by group with
// an order, a contains filter. Each result must hold what the CSVs say.
func TestSelect_AnswersTheExampleWithoutSQL(t *testing.T) {
	b := exampleBundle(t)
	tb, err := NewToolbox(context.Background(), b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	cases := []struct {
		name, args string
		want       []string // lines the result holds
		notWant    []string
	}{
		{
			name: "the parts of one supplier, through the join",
			args: `{"table":"parts","columns":["name"],"where":[{"column":"suppliers.name","op":"=","value":"Kestrel Alloys"}],"order_by":{"column":"name"}}`,
			want: []string{"Aluminium frame CT3", "Aluminium frame TR5"}, notWant: []string{"Carbon frame GV7"},
		},
		{
			name: "delayed orders by customer, the most first",
			args: `{"table":"orders","group_by":["customer"],"aggregate":{"fn":"count","column":"order_id"},"where":[{"column":"status","op":"=","value":"delayed"}],"order_by":{"column":"aggregate","desc":true}}`,
			want: []string{"customer\tcount_order_id", "Cicla Distribution\t1", "Ridgeline Bike Shops\t1", "Velora Webshop\t1"}, notWant: []string{"Urbanmove"},
		},
		{
			name: "contains, with a quote and a wildcard taken literally",
			args: `{"table":"suppliers","columns":["name"],"where":[{"column":"name","op":"contains","value":"alloys"},{"column":"name","op":"!=","value":"it's 100%_"}]}`,
			want: []string{"Kestrel Alloys"},
		},
		{
			name: "ordered by a column of the joined table alone",
			args: `{"table":"parts","columns":["name"],"order_by":{"column":"suppliers.rating","desc":true}}`,
			want: []string{"name\n"},
		},
		{
			name: "distinct values counted apart from rows (15 parts, 8 suppliers)",
			args: `{"table":"parts","aggregate":{"fn":"count_distinct","column":"supplier_id"}}`,
			want: []string{"count_distinct_supplier_id\n8"}, notWant: []string{"15"},
		},
		{
			name: "two values of one column are either (IN), other columns still filter",
			args: `{"table":"suppliers","columns":["name"],"where":[{"column":"name","op":"=","value":"Kestrel Alloys"},{"column":"name","op":"=","value":"Tagus Composites"},{"column":"name","op":"=","value":"Kestrel Alloys"},{"column":"rating","op":">=","value":"4.7"}]}`,
			want: []string{"Tagus Composites"}, notWant: []string{"Kestrel Alloys", "Lumen"},
		},
		{
			name: "groups kept by their count (having)",
			args: `{"table":"orders","columns":["customer"],"group_by":["customer"],"aggregate":{"fn":"count","column":"order_id"},"having":{"op":">=","value":"7"},"order_by":{"column":"customer"}}`,
			want: []string{"Cicla Distribution\t7", "Ridgeline Bike Shops\t7", "Velora Webshop\t8"}, notWant: []string{"Pedal", "Urbanmove"},
		},
		{
			name: "a number compared as a number",
			args: `{"table":"suppliers","columns":["name","rating"],"where":[{"column":"rating","op":">=","value":"4.7"}]}`,
			want: []string{"Tagus Composites\t4.7"}, notWant: []string{"Kestrel Alloys"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := tb.Call(context.Background(), ToolSelect, json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s:\n%s", c.args, got)
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("result\n%s\nwant it to hold %q", got, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(got, w) {
					t.Errorf("result\n%s\nholds %q", got, w)
				}
			}
		})
	}
}

// TestSelect_NamesOnlyWhatExists: the schema offers a branch per data
// table with its columns and those one join away; a call naming a table
// or column outside them (as a model without the grammar could) fails
// not_found and says what exists, and nothing reaches the sandbox.
func TestSelect_NamesOnlyWhatExists(t *testing.T) {
	b := exampleBundle(t)
	tb, err := NewToolbox(context.Background(), b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	sel, ok := tb.Tool(ToolSelect)
	if !ok {
		t.Fatal("no select tool on a bundle with data tables")
	}
	var schema struct {
		AnyOf []struct {
			Properties struct {
				Table   struct{ Enum []string }
				Columns struct{ Items struct{ Enum []string } }
			}
		}
	}
	if err := json.Unmarshal(sel.Grammar, &schema); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sel.Grammar), `"having"`) {
		t.Error("the grammar offers having, which the action model never learnt (kgforge's repairs write it)")
	}
	var parts []string
	for _, br := range schema.AnyOf {
		if slices.Equal(br.Properties.Table.Enum, []string{"parts"}) {
			parts = br.Properties.Columns.Items.Enum
		}
	}
	for _, c := range []string{"part_id", "supplier_id", "suppliers.name", "suppliers.rating"} {
		if !slices.Contains(parts, c) {
			t.Errorf("parts' columns %v lack %q", parts, c)
		}
	}
	for _, args := range []string{
		`{"table":"payroll","columns":["name"]}`,
		`{"table":"parts","columns":["password"]}`,
		`{"table":"parts","where":[{"column":"name; DROP TABLE parts","op":"=","value":"x"}]}`,
	} {
		_, err := tb.Call(context.Background(), ToolSelect, json.RawMessage(args))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Kind != FailNotFound {
			t.Errorf("%s: error %v, want not_found", args, err)
		}
	}
}

// TestSelect_HavingNeedsAGroupedAggregateAndANumber: having compares each
// group's aggregate with a plain number; anything else fails malformed
// before the sandbox.
func TestSelect_HavingNeedsAGroupedAggregateAndANumber(t *testing.T) {
	b := exampleBundle(t)
	tb, err := NewToolbox(context.Background(), b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	for _, args := range []string{
		`{"table":"orders","columns":["customer"],"having":{"op":">","value":"1"}}`,
		`{"table":"orders","aggregate":{"fn":"count","column":"order_id"},"having":{"op":">","value":"1"}}`,
		`{"table":"orders","group_by":["customer"],"aggregate":{"fn":"count","column":"order_id"},"having":{"op":"contains","value":"1"}}`,
		`{"table":"orders","group_by":["customer"],"aggregate":{"fn":"count","column":"order_id"},"having":{"op":">","value":"NaN"}}`,
		`{"table":"orders","group_by":["customer"],"aggregate":{"fn":"count","column":"order_id"},"having":{"op":">","value":"1 OR 1=1"}}`,
		`{"table":"orders","group_by":["customer"],"aggregate":{"fn":"count","column":"order_id"},"having":{"op":">","value":"1e9"}}`,
	} {
		_, err := tb.Call(context.Background(), ToolSelect, json.RawMessage(args))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Kind != FailMalformed {
			t.Errorf("%s: error %v, want malformed", args, err)
		}
	}
}
