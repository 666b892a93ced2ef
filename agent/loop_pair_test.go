package agent

import (
	"slices"
	"testing"
)

// A question that lists aggregates of a column gets each of them, in its
// order, whichever one the model's query took.
func TestAgentActionModel_AnswersEachAggregateTheQuestionLists(t *testing.T) {
	maxRating := `{"table":"suppliers","aggregate":{"fn":"max","column":"rating"}}`
	for _, c := range []struct{ question, call, want string }{
		// ratings run from 3.2 to 4.7, 4.125 on average
		{"What are the minimum and maximum ratings of the suppliers?", maxRating, "3.2, 4.7"},
		{"What is the average, minimum and maximum rating?", maxRating, "4.125, 3.2, 4.7"},
		// the model ordered the rows to take the best one
		{"What are the minimum and maximum ratings of the suppliers?", `{"table":"suppliers","columns":["name"],"order_by":{"column":"rating","desc":true},"limit":1}`, "3.2, 4.7"},
		// over the query's filters: the frame suppliers rate 3.2 and 4.7
		{"What are the lowest and highest ratings of frame suppliers?", `{"table":"suppliers","where":[{"column":"part_category","op":"=","value":"frames"}],"aggregate":{"fn":"min","column":"rating"}}`, "3.2, 4.7"},
		// one aggregate: the model's answer stands
		{"What is the highest rating of a supplier?", maxRating, "4.7"},
	} {
		_, ans := askRepaired(t, c.question, c.call)
		if ans.Text != c.want {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.want)
		}
	}
}

func TestAskedAggregates(t *testing.T) {
	for q, want := range map[string][]string{
		"What are the minimum and maximum number of products across all the shops?": {"min", "max"},
		"Show the average, minimum, and maximum age.":                               {"avg", "min", "max"},
		"What is the max and min capacity?":                                         {"max", "min"},
		"What is the maximum capacity and the average of all stadiums?":             nil,
		"What is the highest rating?":                                               nil,
		"Which supplier has the highest rating and the lowest cost?":                nil,
	} {
		if got := askedAggregates(q); !slices.Equal(got, want) {
			t.Errorf("askedAggregates(%q) = %v, want %v", q, got, want)
		}
	}
}
