package agent

import "testing"

// A question that asks for a share is answered with the part over the
// whole: the query without the filter the question writes last.
func TestAgentActionModel_AnswersAShareOfRows(t *testing.T) {
	delivered := `{"column":"status","op":"=","value":"delivered"}`
	urbanmove := `{"column":"customer","op":"=","value":"Urbanmove Rentals"}`
	for _, c := range []struct{ question, call, want string }{
		// 15 of the 40 orders
		{"What percentage of orders were delivered?", `{"table":"orders","where":[` + delivered + `],"aggregate":{"fn":"count","column":"order_id"}}`, "37.5 % (15 of 40)"},
		// a date the question does not write is neither the part nor the whole
		{"What percentage of orders were delivered?", `{"table":"orders","where":[` + delivered + `,{"column":"order_date","op":"=","value":"2025-01-10"}],"aggregate":{"fn":"count","column":"order_id"}}`, "37.5 % (15 of 40)"},
		// a lookup of the part is counted
		{"What percentage of orders were delivered?", `{"table":"orders","columns":["order_id"],"where":[` + delivered + `]}`, "37.5 % (15 of 40)"},
		// the whole is Urbanmove's 4 orders, the filter written first
		{"What share of the orders of Urbanmove Rentals were delivered?", `{"table":"orders","where":[` + delivered + `,` + urbanmove + `],"aggregate":{"fn":"count","column":"order_id"}}`, "50 % (2 of 4)"},
		// a share of an amount: 340 of the 1,305 units ordered
		{"What proportion of the units ordered went to Urbanmove Rentals?", `{"table":"orders","where":[` + urbanmove + `],"aggregate":{"fn":"sum","column":"quantity"}}`, "26.1 % (340 of 1305)"},
		// no share: the count stands
		{"How many orders were delivered?", `{"table":"orders","where":[` + delivered + `],"aggregate":{"fn":"count","column":"order_id"}}`, "15"},
	} {
		_, ans := askRepaired(t, c.question, c.call)
		if ans.Text != c.want {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.want)
		}
	}
}

func TestAsksShare(t *testing.T) {
	for q, want := range map[string]bool{
		"What percentage of orders were delivered?":                    true,
		"What % of suppliers are in Spain?":                            true,
		"What share of the units went to Urbanmove?":                   true,
		"What was the percentage change of revenue from 2018 to 2019?": false,
		"What percentage increase of sales was there?":                 false,
		"What is the share price?":                                     false,
		"How many orders were delivered?":                              false,
	} {
		if got := asksShare(q); got != want {
			t.Errorf("asksShare(%q) = %v, want %v", q, got, want)
		}
	}
}
