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
		// a number the question bounds (rating 3.2 and 4.6)
		{"Does Kestrel Alloys have a rating above 4?", lookup("rating", "Kestrel Alloys"), "No"},
		{"Does Danubia Wheelworks have a rating above 4?", lookup("rating", "Danubia Wheelworks"), "Yes"},
		// a count: none is no, some is yes, a bound on it is measured (3 parts)
		{"Are there any suppliers in France?", countIn("France"), "No"},
		{"Are there any suppliers in Spain?", countIn("Spain"), "Yes"},
		{"Does Kestrel Alloys supply more than 2 parts?", kestrelParts, "Yes"},
		{"Does Kestrel Alloys supply more than 3 parts?", kestrelParts, "No"},
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
