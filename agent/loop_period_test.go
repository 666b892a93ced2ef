package agent

import "testing"

func TestQuestionPeriod(t *testing.T) {
	for _, c := range []struct {
		question string
		want     period
		ok       bool
	}{
		{"How many orders were placed in March 2025?", period{"2025-03-01", "2025-04-01"}, true},
		{"Which product did Urbanmove Rentals order in April of 2025?", period{"2025-04-01", "2025-05-01"}, true},
		{"How many orders were placed in December 2024?", period{"2024-12-01", "2025-01-01"}, true},
		{"How many orders were placed in 2025?", period{"2025-01-01", "2026-01-01"}, true},
		{"How many orders were placed in Sept 2025?", period{"2025-09-01", "2025-10-01"}, true},
		{"How many orders were placed since March 2025?", period{from: "2025-03-01"}, true},
		{"How many orders were placed after March 2025?", period{from: "2025-04-01"}, true},
		{"How many orders were placed before March 2025?", period{to: "2025-03-01"}, true},
		{"How many orders were placed until March 2025?", period{to: "2025-04-01"}, true},
		// no span, a number that is no year, a month without its year, two spans
		{"How many orders were placed?", period{}, false},
		{"How many orders hold 2025 units?", period{}, false},
		{"How many orders were placed in March?", period{}, false},
		{"May the Volt E8 be ordered?", period{}, false},
		{"How many orders were placed in March 2025 or April 2025?", period{}, false},
	} {
		got, ok := questionPeriod(c.question)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("questionPeriod(%q) = %+v, %v; want %+v, %v", c.question, got, ok, c.want, c.ok)
		}
	}
}

// A query that leaves out the span of time the question names is bounded
// to it on the table's one date column.
func TestAgentActionModel_BoundsTheQueryToTheSpanTheQuestionNames(t *testing.T) {
	for _, c := range []struct {
		question, call string
		bounded        bool
		answer         string
	}{
		// orders.csv: 10 orders from 2025-03-04 to 2025-03-28
		{"How many orders were placed in March 2025?", `{"table":"orders","aggregate":{"fn":"count","column":"order_id"}}`, true, "10"},
		// Urbanmove Rentals' one April order: 40 Volt E8 on 2025-04-16
		{"Which product did Urbanmove Rentals order in April 2025?", `{"table":"orders","columns":["product"],"where":[{"column":"customer","op":"=","value":"Urbanmove Rentals"}]}`, true, "Volt E8"},
		// none in the span: the count is 0
		{"How many orders were placed in 2024?", `{"table":"orders","aggregate":{"fn":"count","column":"order_id"}}`, true, "0"},
		// a date filter the model wrote stands
		{"How many orders were placed in March 2025?", `{"table":"orders","where":[{"column":"order_date","op":">=","value":"2025-03-01"},{"column":"order_date","op":"<","value":"2025-04-01"}],"aggregate":{"fn":"count","column":"order_id"}}`, false, "10"},
		// parts have no date column
		{"How many parts were bought in 2025?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, false, "15"},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		got, ok := repairedQuery(t, c.question, step, ans, c.bounded)
		if ok && len(got.Where) == 0 {
			t.Errorf("%q: kgforge ran %s, want the span's bounds", c.question, step.Args)
		}
		if ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}
