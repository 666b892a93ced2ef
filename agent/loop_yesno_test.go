package agent

import (
	"strings"
	"testing"
)

// A question asked for yes or no is answered "Yes" or "No" from the
// result, before the values the verdict rests on.
func TestAgentActionModel_AnswersYesOrNo(t *testing.T) {
	lookup := func(col, name string) string {
		return `{"table":"suppliers","columns":["` + col + `"],"where":[{"column":"name","op":"=","value":"` + name + `"}]}`
	}
	countIn := func(country string) string {
		return `{"table":"suppliers","where":[{"column":"country","op":"=","value":"` + country + `"}],"aggregate":{"fn":"count","column":"supplier_id"}}`
	}
	kestrelParts := `{"table":"parts","where":[{"column":"suppliers.name","op":"=","value":"Kestrel Alloys"}],"aggregate":{"fn":"count","column":"part_id"}}`
	for _, c := range []struct {
		question, call, want string // want: the answer's first word, "" for no verdict
	}{
		// the value the question writes against the one looked up
		{"Is Kestrel Alloys based in Spain?", lookup("country", "Kestrel Alloys"), "No"},
		{"Is Serra Brakes based in Spain?", lookup("country", "Serra Brakes"), "Yes"},
		// a value the query left out becomes a filter (filterEveryValue)
		{"Is Kestrel Alloys based in Spain?", `{"table":"suppliers","columns":["country"],"where":[{"column":"country","op":"=","value":"Spain"}]}`, "No"},
		{"Is Serra Brakes based in Spain?", `{"table":"suppliers","columns":["country"],"where":[{"column":"country","op":"=","value":"Spain"}]}`, "Yes"},
		// a number the question bounds (rating 3.2 and 4.6)
		{"Does Kestrel Alloys have a rating above 4?", lookup("rating", "Kestrel Alloys"), "No"},
		{"Does Danubia Wheelworks have a rating above 4?", lookup("rating", "Danubia Wheelworks"), "Yes"},
		// a count: none is no, some is yes, a bound on it is measured (3 parts)
		{"Are there any suppliers in France?", countIn("France"), "No"},
		{"Are there any suppliers in Spain?", countIn("Spain"), "Yes"},
		{"Does Kestrel Alloys supply more than 2 parts?", kestrelParts, "Yes"},
		{"Does Kestrel Alloys supply more than 3 parts?", kestrelParts, "No"},
		// a sum per group read as the lookup of the groups' rows (Serra
		// Brakes 4.0, Lumen Cell Systems 4.5, Danubia Wheelworks 4.6)
		{"Does Serra Brakes have a rating above 4.5?", `{"table":"suppliers","columns":["name"],"group_by":["name"],"aggregate":{"fn":"sum","column":"rating"},"where":[{"column":"rating","op":">","value":"4.5"}]}`, "No"},
		{"Does Danubia Wheelworks have a rating above 4.5?", `{"table":"suppliers","columns":["name"],"group_by":["name"],"aggregate":{"fn":"sum","column":"rating"},"where":[{"column":"rating","op":">","value":"4.5"}]}`, "Yes"},
		// not a yes-or-no question
		{"Which supplier is based in Spain?", `{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Spain"}]}`, ""},
	} {
		_, ans := askRepaired(t, c.question, c.call)
		first, _, _ := strings.Cut(ans.Text, ":")
		switch {
		case c.want == "" && (first == "Yes" || first == "No"):
			t.Errorf("%q: answer %q, want no verdict", c.question, ans.Text)
		case c.want != "" && first != c.want:
			t.Errorf("%q: answer %q, want %s first", c.question, ans.Text, c.want)
		}
	}
}

func TestYesNoQuestion(t *testing.T) {
	for q, want := range map[string]bool{
		"Is Kestrel Alloys based in Spain?":         true,
		"Does any supplier have a rating above 4?":  true,
		"Were more than 10 units scrapped?":         true,
		"Do you know which supplier is in Spain?":   false,
		"Is the supplier of the TR5 frame British?": true,
		"How many suppliers are there?":             false,
		"Which suppliers are in Spain?":             false,
		"":                                          false,
	} {
		if got := yesNoQuestion(q); got != want {
			t.Errorf("yesNoQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}

// A yes-or-no question is answered from a sentence that names all of it,
// and the model is asked when the sentence names only part of it.
func TestAgentActionModel_AnswersYesOrNoFromASentence(t *testing.T) {
	for _, c := range []struct{ question, want string }{
		{"Does the fatigue test take a sample of 10 frames from each batch?", "Yes: The fatigue test takes a sample of 10 frames from each batch."},
		{"Were the City 300 and the Volt E8 affected?", "No: The City 300 and the Volt E8 were not affected."},
	} {
		ans := askExample(t, script(actionModel), c.question)
		if ans.Text != c.want || ans.Tokens.Turns != 0 {
			t.Errorf("%q: answer %q after %d turns, want %q without a turn", c.question, ans.Text, ans.Tokens.Turns, c.want)
		}
	}
	// "shipment" is in no sentence about the fatigue test: the model is asked
	m := script(actionModel, `{"tool":"select","args":{"table":"parts","columns":["name"],"where":[{"column":"plant","op":"=","value":"Brno"}]}}`)
	ans := askExample(t, m, "Does the fatigue test take a sample of 10 frames from each shipment?")
	if ans.Tokens.Turns != 1 || len(ans.Steps) == 0 || ans.Steps[0].Tool != ToolSelect {
		t.Errorf("answer %q, steps %+v after %d turns, want the model's query", ans.Text, ans.Steps, ans.Tokens.Turns)
	}
}

func TestNegated(t *testing.T) {
	for text, want := range map[string]bool{
		"Velora Cycles does not make its own frames.": true,
		"No cracked frame reached a customer.":        true,
		"The plant doesn't paint frames.":             true,
		"Velora Cycles makes its own frames.":         false,
		"Nothing notable happened.":                   false,
	} {
		if got := negated(text); got != want {
			t.Errorf("negated(%q) = %v, want %v", text, got, want)
		}
	}
}

// An aggregate with a filter gets a filter on each other value the
// question writes (filterEveryValue); one without is addFilter's.
func TestAgentActionModel_FiltersAnAggregateOnEveryValue(t *testing.T) {
	voltCount := `{"table":"orders","where":[{"column":"product","op":"=","value":"Volt E8"}],"aggregate":{"fn":"count","column":"order_id"}}`
	for _, c := range []struct {
		question, call string
		filters        int // the filters of kgforge's query; 0 when the model's stands
		answer         string
	}{
		// 11 Volt E8 orders, 4 of them shipped
		{"How many Volt E8 orders were shipped?", voltCount, 2, "4"},
		// no other value written: the count stands
		{"How many Volt E8 orders are there?", voltCount, 0, "11"},
		// a value of a column the query filters already is left alone
		{"How many orders of the Volt E8 or the City 300 are there?", voltCount, 0, "11"},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		got, ok := repairedQuery(t, c.question, step, ans, c.filters > 0)
		if ok && len(got.Where) != c.filters {
			t.Errorf("%q: kgforge ran %s, want %d filters", c.question, step.Args, c.filters)
		}
		if ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}
