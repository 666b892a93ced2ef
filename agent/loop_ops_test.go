package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestQuestionOp_TheComparatorBeforeTheValue: the operator a question puts
// on a value it writes, from the nearest comparator phrase (up to two
// words before, or a trailing one), = when there is none, and nothing
// for a value the question does not write as a word.
func TestQuestionOp_TheComparatorBeforeTheValue(t *testing.T) {
	tests := []struct {
		q, v, op string
		ok       bool
	}{
		{"What is the average age of the visitors whose membership level is not higher than 4?", "4", "<=", true},
		{"How many visitors below age 30 are there?", "30", "<", true},
		{"What are the names of properties with more than 1 room?", "1", ">", true},
		{"Show the name of teachers aged either 32 or 33?", "32", "=", true},
		{"Show the name of teachers aged either 32 or 33?", "33", "=", true},
		{"List the name of teachers whose hometown is not Little Lever Urban District.", "Little Lever Urban District", "!=", true},
		{"Which suppliers have a rating of at least 4.5?", "4.5", ">=", true},
		{"Which parts were ordered 100 or more times?", "100", ">=", true},
		// a comparative and its "than" around what is compared
		{"How many pets have a greater weight than 10?", "10", ">", true},
		{"Which cars have more cylinders than 4?", "4", ">", true},
		{"Which shops have fewer products than 2000?", "2000", "<", true},
		{"Which suppliers have a rating higher than the average of 4?", "4", "=", true},
		{"Orders placed after 2025-01-10", "2025-01-10", ">", true},
		{"How many orders are above 30 and below 40 units?", "40", "<", true},
		{"How many orders are above 30 and below 40 units?", "30", ">", true},
		{"Give average earnings of poker players who are taller than 200.", "200", ">", true},
		{"Find the number of pets whose weight is heavier than 10.", "10", ">", true},
		{"Which parts are cheaper than 100 EUR?", "100", "<", true},
		{"Which parts are more expensive than 100 EUR?", "100", ">", true},
		{"Which supplier supplies the battery pack?", "S001", "", false},
		{"Which plant has 320 workers?", "32", "", false},
		// A comparator for another value does not carry over: "below" is
		// for 40, "and" ends the search from 30 back.
		{"Teachers older than 50 and 30 years in service", "30", "=", true},
	}
	for _, tt := range tests {
		op, ok := questionOp(tt.q, tt.v)
		if op != tt.op || ok != tt.ok {
			t.Errorf("questionOp(%q, %q) = %q, %v; want %q, %v", tt.q, tt.v, op, ok, tt.op, tt.ok)
		}
	}
}

func TestOrderedValue(t *testing.T) {
	for v, want := range map[string]bool{"30": true, "4.5": true, "2025-01-10": true, "1,200": true, "Brno": false, "": false, "S001": false, "-": false} {
		if got := orderedValue(v); got != want {
			t.Errorf("orderedValue(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestAgentActionModel_TakesTheQuestionsComparator: a filter whose value
// the question writes with a comparator gets that operator, kgforge runs
// the query again as a step of its own and answers from it; a filter whose
// operator the question agrees with stands. (The action model is
// scripted: a test double that injects the wrong operator.)
func TestAgentActionModel_TakesTheQuestionsComparator(t *testing.T) {
	for _, c := range []struct {
		question, call, want string
		steps                int
	}{
		// ratings: 3.2 (Kestrel), 4.7 (Tagus), others between
		{"Which suppliers have a rating of at least 4.7?", `{"table":"suppliers","columns":["name"],"where":[{"column":"rating","op":"<","value":"4.7"}]}`, "Tagus Composites", 3},
		{"Which suppliers have a rating of 4.7?", `{"table":"suppliers","columns":["name"],"where":[{"column":"rating","op":"=","value":"4.7"}]}`, "Tagus Composites", 2},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered || len(ans.Steps) != c.steps {
			t.Fatalf("%q: answer %+v; want %d steps", c.question, ans, c.steps)
		}
		var q selectCall
		if c.steps == 3 && (ans.Steps[1].By != StepByKgforge || json.Unmarshal(ans.Steps[1].Args, &q) != nil || len(q.Where) != 1 || q.Where[0].Op != ">=") {
			t.Errorf("%q: steps %+v; want kgforge's query with >=", c.question, ans.Steps)
		}
		if ans.Text != c.want {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.want)
		}
	}
}

func TestAsksOrderedList(t *testing.T) {
	for q, want := range map[string]bool{
		"List the names of teachers in ascending order of age.":                true,
		"Sort employee names by their age in ascending order.":                 true,
		"What are the names of the teachers ordered by ascending age?":         true,
		"What is the hometown of the youngest teacher?":                        false,
		"List the top 3 suppliers ordered by rating.":                          false,
		"Which supplier has the highest rating?":                               false,
		"Show the name of the teacher who is the oldest, ordered by age.":      false,
		"Which suppliers are based in Spain?":                                  false,
		"List the first order placed, in order of date.":                       false,
		"Find the name and membership level of the visitors, sort by age.":     true,
		"In what order were the orders of Velora Webshop placed?":              false,
		"Which products has Urbanmove Rentals ordered?":                        false,
		"List the suppliers ordered by rating.":                                true,
		"Which one is ordered first?":                                          false,
		"Name the parts and their suppliers in alphabetical order of the part": true,
	} {
		if got := asksOrderedList(q); got != want {
			t.Errorf("asksOrderedList(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestAgentActionModel_ListsEverySortedRow: a sorted list cut to its first
// row by the model runs again without the limit when the question asks
// for the rows in an order and for no first of them; a question for the
// first keeps it. (The action model is scripted: a test double.)
func TestAgentActionModel_ListsEverySortedRow(t *testing.T) {
	call := `{"tool":"select","args":{"table":"suppliers","columns":["name"],"order_by":{"column":"rating","desc":true},"limit":1}}`
	ans := askExample(t, script(actionModel, call), "List the suppliers' names in descending order of rating.")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's query, kgforge's without the limit, the answer", ans.Steps)
	}
	if !strings.HasPrefix(ans.Text, "Tagus Composites") || !strings.Contains(ans.Text, "Kestrel Alloys") {
		t.Errorf("answer %q; want every supplier, Tagus Composites (4.7) first", ans.Text)
	}
	ans = askExample(t, script(actionModel, call), "Which supplier has the highest rating?")
	if !ans.Answered || len(ans.Steps) != 2 || ans.Text != "Tagus Composites" {
		t.Errorf("steps %+v, answer %q; want the model's query answered as it is", ans.Steps, ans.Text)
	}
}

func TestQuestionComparisons(t *testing.T) {
	cars := []string{"Id", "Cylinders", "Horsepower", "Year", "Model", "people.Height", "Earnings"}
	carTypes := map[string]string{"Id": "BIGINT", "Cylinders": "BIGINT", "Horsepower": "DOUBLE", "Year": "BIGINT", "Model": "VARCHAR", "people.Height": "DOUBLE", "Earnings": "DOUBLE"}
	parts := []string{"part_id", "name", "unit_cost_eur", "suppliers.rating"}
	partTypes := map[string]string{"part_id": "VARCHAR", "name": "VARCHAR", "unit_cost_eur": "DOUBLE", "suppliers.rating": "DOUBLE"}
	farm := []string{"Farm_ID", "Total_Horses", "Working_Horses"}
	farmTypes := map[string]string{"Farm_ID": "BIGINT", "Total_Horses": "DOUBLE", "Working_Horses": "DOUBLE"}
	tests := []struct {
		q     string
		cols  []string
		types map[string]string
		want  []comparison
	}{
		{"How many cars have more than 4 cylinders?", cars, carTypes, []comparison{{"Cylinders", ">", "4"}}},
		{"What is the average earnings of poker players with height higher than 200?", cars, carTypes, []comparison{{"people.Height", ">", "200"}}},
		{"How many cars were produced in 1980?", cars, carTypes, nil},   // no comparator
		{"How many cars have more than 4 wheels?", cars, carTypes, nil}, // no column named
		{"Cars with horsepower above 150 and fewer than 6 cylinders", cars, carTypes, []comparison{{"Horsepower", ">", "150"}, {"Cylinders", "<", "6"}}},
		// the last word of a column's name but its unit, where no column's
		// every word is near (the table's own before a joined one); two
		// such columns are none, and an identifier is compared with no
		// number unless "id" says so
		{"How many parts cost more than 100 euros?", parts, partTypes, []comparison{{"unit_cost_eur", ">", "100"}}},
		{"Which parts have a unit cost below 20?", parts, partTypes, []comparison{{"unit_cost_eur", "<", "20"}}},
		{"How many farms have more than 5000 horses?", farm, farmTypes, nil},
		{"How many parts cost more than 100 euros?", append(parts, "purchase_orders.unit_cost_eur"), map[string]string{"unit_cost_eur": "DOUBLE", "purchase_orders.unit_cost_eur": "DOUBLE"}, []comparison{{"unit_cost_eur", ">", "100"}}},
	}
	for _, tt := range tests {
		got := questionComparisons(tt.q, tt.cols, tt.types)
		if len(got) != len(tt.want) {
			t.Errorf("%q: %+v, want %+v", tt.q, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: %+v, want %+v", tt.q, got, tt.want)
			}
		}
	}
}

// TestAgentActionModel_AddsTheComparisonTheQuestionStates: a count over
// the whole table, for a question that compares a column with a number,
// runs again with that filter. (The action model is scripted.)
func TestAgentActionModel_AddsTheComparisonTheQuestionStates(t *testing.T) {
	call := `{"tool":"select","args":{"table":"suppliers","aggregate":{"fn":"count","column":"supplier_id"}}}`
	ans := askExample(t, script(actionModel, call), "How many suppliers have a rating higher than 4.5?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's count, kgforge's with the rating filter, the answer", ans.Steps)
	}
	var q selectCall
	if json.Unmarshal(ans.Steps[1].Args, &q) != nil || len(q.Where) != 1 || q.Where[0].Column != "rating" || q.Where[0].Op != ">" || q.Where[0].Value != "4.5" {
		t.Errorf("kgforge's query %s; want rating > 4.5", ans.Steps[1].Args)
	}
	if ans.Text != "2" { // 4.6 and 4.7 of suppliers.csv
		t.Errorf("answer %q, want 2", ans.Text)
	}
}

func TestQuestionDirection(t *testing.T) {
	tests := []struct {
		q, column string
		desc, ok  bool
	}{
		{"What is the horsepower of the car with the largest accelerate?", "Accelerate", true, true},
		{"Which area do most of the crimes happen?", "", true, true},
		{"Which city has the fewest employees?", "", false, true},
		{"List the earnings of poker players in descending order.", "Earnings", true, true},
		{"Sort the names in ascending order of age.", "Age", false, true},
		{"Who is the oldest teacher?", "Age", true, true},
		{"Who is the oldest teacher?", "Birth_Date", false, true},
		{"Who is the youngest teacher?", "Birth_Date", true, true},
		{"Who is the youngest teacher?", "teacher.BirthDate", true, true}, // camelCase, a joined table's column
		{"Who is the oldest teacher?", "Name", false, false},              // the column decides, and says nothing
		{"Who is the oldest teacher?", "", false, false},                  // an aggregate: no age or date
		{"Which parts cost at most 50 euros?", "cost", false, false},      // a comparator, not a superlative
		{"Which suppliers have at least 3 parts?", "", false, false},
		{"What are the maximum and minimum ages?", "Age", false, false}, // both ways
		{"Which supplier supplies the battery pack?", "name", false, false},
	}
	for _, tt := range tests {
		desc, ok := questionDirection(tt.q, tt.column)
		if desc != tt.desc || ok != tt.ok {
			t.Errorf("%q on %q: desc %v ok %v, want %v %v", tt.q, tt.column, desc, ok, tt.desc, tt.ok)
		}
	}
}

func TestTopCount(t *testing.T) {
	for q, want := range map[string]int{
		"What are the top five states by revenue?": 5,
		"Show the top 3 customers.":                3,
		"Which customer is on top?":                1,
		"Which year has the most concerts?":        1,
		"List the top 0 rows":                      1,
	} {
		if got := topCount(q); got != want {
			t.Errorf("%q: %d, want %d", q, got, want)
		}
	}
}

// TestAgentActionModel_TurnsTheOrderTheQuestionAsks: a query ordered the
// other way than the question's superlative runs again turned; one
// already ordered as asked is answered as it is. (The action model is
// scripted.)
func TestAgentActionModel_TurnsTheOrderTheQuestionAsks(t *testing.T) {
	call := `{"tool":"select","args":{"table":"suppliers","columns":["name"],"order_by":{"column":"rating","desc":true},"limit":1}}`
	ans := askExample(t, script(actionModel, call), "Which supplier has the lowest rating?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's query, kgforge's ascending, the answer", ans.Steps)
	}
	if ans.Text != "Kestrel Alloys" { // 3.2 in suppliers.csv
		t.Errorf("answer %q, want Kestrel Alloys", ans.Text)
	}
	call = `{"tool":"select","args":{"table":"suppliers","columns":["name"],"order_by":{"column":"rating"},"limit":1}}`
	ans = askExample(t, script(actionModel, call), "Which supplier has the lowest rating?")
	if !ans.Answered || len(ans.Steps) != 2 || ans.Text != "Kestrel Alloys" {
		t.Errorf("steps %+v, answer %q; want the model's query answered as it is", ans.Steps, ans.Text)
	}
}

// TestAgentActionModel_RanksTheGroupsForASuperlative: a count per group,
// for a question that asks which group has the most (or fewest), runs
// again ordered by the count and cut to the first; a question that asks
// for each group keeps every group. (The action model is scripted.)
func TestAgentActionModel_RanksTheGroupsForASuperlative(t *testing.T) {
	call := `{"tool":"select","args":{"table":"orders","columns":["product"],"group_by":["product"],"aggregate":{"fn":"count","column":"order_id"}}}`
	for q, want := range map[string]string{
		"Which product was ordered the most times?":   "Trail 500", // 13 of the 40 orders in orders.csv
		"Which product appears in the fewest orders?": "City 300",  // 7
	} {
		ans := askExample(t, script(actionModel, call), q)
		if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
			t.Fatalf("%q: steps %+v; want the model's count, kgforge's ranked, the answer", q, ans.Steps)
		}
		if !strings.HasPrefix(ans.Text, want) || strings.Contains(ans.Text, ";") {
			t.Errorf("%q: answer %q, want %s alone", q, ans.Text, want)
		}
	}
	ans := askExample(t, script(actionModel, call), "How many orders does each product have?")
	if !ans.Answered || len(ans.Steps) != 2 || strings.Count(ans.Text, ";") != 3 {
		t.Errorf("steps %+v, answer %q; want the four products' counts as the model asked", ans.Steps, ans.Text)
	}
}

// TestAgentActionModel_CountsDifferentValues: a count of a column's rows,
// for a question that counts its different values, runs again as a count
// of distinct values. (The action model is scripted.)
func TestAgentActionModel_CountsDifferentValues(t *testing.T) {
	call := `{"tool":"select","args":{"table":"orders","aggregate":{"fn":"count","column":"customer"}}}`
	ans := askExample(t, script(actionModel, call), "How many different customers have placed orders?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge || ans.Text != "7" { // 7 customers, 40 orders
		t.Errorf("steps %+v, answer %q; want kgforge's distinct count, 7", ans.Steps, ans.Text)
	}
	ans = askExample(t, script(actionModel, call), "How many orders are there?")
	if !ans.Answered || len(ans.Steps) != 2 || ans.Text != "40" {
		t.Errorf("steps %+v, answer %q; want the model's count, 40", ans.Steps, ans.Text)
	}
}

func TestNoRowsMatched(t *testing.T) {
	count := selectCall{Aggregate: &struct {
		Fn     string `json:"fn"`
		Column string `json:"column"`
	}{"count", "part_id"}}
	grouped := count
	grouped.GroupBy = []string{"plant"}
	tests := []struct {
		c    selectCall
		rows [][]string
		want bool
	}{
		{selectCall{}, nil, true},
		{selectCall{}, [][]string{{"0"}}, false}, // a column's value, not a count
		{count, [][]string{{"0"}}, true},
		{count, [][]string{{"NULL"}}, true},
		{count, [][]string{{"3"}}, false},
		{grouped, [][]string{{"Porto", "0"}}, false},
	}
	for _, tt := range tests {
		if got := noRowsMatched(tt.c, tt.rows); got != tt.want {
			t.Errorf("%+v %v: %v, want %v", tt.c, tt.rows, got, tt.want)
		}
	}
}

// TestAgentActionModel_MovesTheFilterOfACountOfNothing: a count whose
// filter puts a name on a key column counts 0, and runs again with the
// filter on the joined column that holds the name. (The action model is
// scripted.)
func TestAgentActionModel_MovesTheFilterOfACountOfNothing(t *testing.T) {
	call := `{"tool":"select","args":{"table":"parts","where":[{"column":"supplier_id","op":"=","value":"Kestrel Alloys"}],"aggregate":{"fn":"count","column":"part_id"}}}`
	ans := askExample(t, script(actionModel, call), "How many parts come from Kestrel Alloys?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's count, kgforge's on the supplier's name, the answer", ans.Steps)
	}
	if ans.Text != "3" { // Aluminium frame TR5, CT3 and VE8 in parts.csv
		t.Errorf("answer %q (steps %+v), want 3", ans.Text, ans.Steps)
	}
}

func TestSuperlativeColumn(t *testing.T) {
	cols := []string{"Horsepower", "Accelerate", "Model", "pet_age", "weight", "PetType", "people.Height", "Year", "ordered_on"}
	types := map[string]string{"Horsepower": "DOUBLE", "Accelerate": "DOUBLE", "Model": "VARCHAR", "pet_age": "BIGINT", "weight": "DOUBLE", "PetType": "VARCHAR", "people.Height": "DOUBLE", "Year": "BIGINT", "ordered_on": "DATE"}
	for q, want := range map[string]string{
		"What is the horsepower of the car with the largest accelerate?":       "Accelerate",
		"What type of pet is the youngest animal, and how much does it weigh?": "pet_age",
		"Who is the tallest person? Give the highest height.":                  "people.Height",
		"Which pet has the lowest weight?":                                     "weight",
		"Which car has the highest horsepower and the largest accelerate?":     "", // two columns
		"Which state performs best?":                                           "", // no superlative counted
		"Which model has the most versions?":                                   "", // no column named
		"Which pets weigh at most 10?":                                         "", // a comparator
		"Which car has the most units ordered?":                                "", // a date is not ranked by "most"
		"Which car was the latest ordered?":                                    "ordered_on",
	} {
		if got := superlativeColumn(q, cols, types); got != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
}

// TestAgentActionModel_RanksByTheColumnTheSuperlativeNames: a superlative
// query ordered by another column than the one the question names runs
// again ordered by it. (The action model is scripted.)
func TestAgentActionModel_RanksByTheColumnTheSuperlativeNames(t *testing.T) {
	call := `{"tool":"select","args":{"table":"suppliers","columns":["name"],"order_by":{"column":"name"},"limit":1}}`
	ans := askExample(t, script(actionModel, call), "Which supplier has the lowest rating?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge || ans.Text != "Kestrel Alloys" { // 3.2
		t.Errorf("steps %+v, answer %q; want kgforge's query by rating, Kestrel Alloys", ans.Steps, ans.Text)
	}
}

// TestAgentActionModel_CountsForAMostOfRows: "the most orders" written as
// an order by the customer's name runs again as a count per customer,
// the largest first. (The action model is scripted.)
func TestAgentActionModel_CountsForAMostOfRows(t *testing.T) {
	call := `{"tool":"select","args":{"table":"orders","columns":["customer"],"order_by":{"column":"customer","desc":true},"limit":1}}`
	ans := askExample(t, script(actionModel, call), "Which customer placed the most orders?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's query, kgforge's count per customer, the answer", ans.Steps)
	}
	if !strings.HasPrefix(ans.Text, "Velora Webshop") { // 8 of the 40 orders in orders.csv
		t.Errorf("answer %q, want Velora Webshop", ans.Text)
	}
	ans = askExample(t, script(actionModel, call), "Which customer comes last in alphabetical order?")
	if !ans.Answered || len(ans.Steps) != 2 {
		t.Errorf("steps %+v; want the model's query answered as it is", ans.Steps)
	}
}

func TestGroupCount(t *testing.T) {
	cols := []string{"Country", "Cylinders", "Maker"}
	types := map[string]string{"Country": "VARCHAR", "Cylinders": "BIGINT", "Maker": "VARCHAR"}
	tests := []struct {
		q         string
		filters   []string
		op, value string
		ok        bool
	}{
		{"Which countries in europe have at least 3 car manufacturers?", nil, ">=", "3", true},
		{"List the members who visited some shops more than once.", nil, ">", "1", true},
		{"Which cities are home to at least two employees?", nil, ">=", "2", true},
		{"Which makers have 3 or more models?", nil, ">=", "3", true},
		{"How many cars have more than 4 cylinders?", nil, "", "", false},                   // a column's comparison
		{"Which year has the most concerts?", nil, "", "", false},                           // no number
		{"Which makers in 1980 have more than 2 models?", []string{"1980"}, ">", "2", true}, // 1980 is a filter
		{"Which towns have at least 2 teachers and more than 3 courses?", nil, "", "", false},
		{"Which makers have 3 models?", nil, "", "", false}, // no comparator
	}
	for _, tt := range tests {
		op, value, ok := groupCount(tt.q, cols, types, tt.filters)
		if op != tt.op || value != tt.value || ok != tt.ok {
			t.Errorf("%q: %q %q %v, want %q %q %v", tt.q, op, value, ok, tt.op, tt.value, tt.ok)
		}
	}
}

// TestAgentActionModel_KeepsTheGroupsTheQuestionCounts: a count per
// customer, for a question that asks for the customers with at least 7
// orders, runs again keeping those groups. (The action model is
// scripted.)
func TestAgentActionModel_KeepsTheGroupsTheQuestionCounts(t *testing.T) {
	call := `{"tool":"select","args":{"table":"orders","columns":["customer"],"group_by":["customer"],"aggregate":{"fn":"count","column":"order_id"}}}`
	ans := askExample(t, script(actionModel, call), "Which customers have placed at least seven orders?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's count, kgforge's with having, the answer", ans.Steps)
	}
	for _, c := range []string{"Velora Webshop", "Ridgeline Bike Shops", "Cicla Distribution"} { // 8, 7, 7 in orders.csv
		if !strings.Contains(ans.Text, c) {
			t.Errorf("answer %q lacks %s", ans.Text, c)
		}
	}
	if strings.Contains(ans.Text, "Pedal") || strings.Contains(ans.Text, "Urbanmove") {
		t.Errorf("answer %q holds a customer with fewer than 7 orders", ans.Text)
	}
}

// TestAgentActionModel_MatchesPartOfANameAsContains: an = filter on part
// of the name its column holds matches nothing, and runs again as
// contains. (The action model is scripted.)
func TestAgentActionModel_MatchesPartOfANameAsContains(t *testing.T) {
	call := `{"tool":"select","args":{"table":"parts","columns":["unit_cost_eur"],"where":[{"column":"name","op":"=","value":"frame TR5"}]}}`
	ans := askExample(t, script(actionModel, call), "What does the frame TR5 cost per unit?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's query, kgforge's with contains, the answer", ans.Steps)
	}
	var q selectCall
	if json.Unmarshal(ans.Steps[1].Args, &q) != nil || len(q.Where) != 1 || q.Where[0].Op != "contains" || q.Where[0].Column != "name" {
		t.Errorf("kgforge's query %s; want name contains frame TR5", ans.Steps[1].Args)
	}
	if !strings.HasPrefix(ans.Text, "142") { // Aluminium frame TR5 in parts.csv
		t.Errorf("answer %q, want 142", ans.Text)
	}
}

func TestAggregateColumnNamed(t *testing.T) {
	cols := []string{"Age", "Level_of_membership", "Num_of_ticket", "Total_spent", "Name"}
	types := map[string]string{"Age": "BIGINT", "Level_of_membership": "BIGINT", "Num_of_ticket": "BIGINT", "Total_spent": "DOUBLE", "Name": "VARCHAR"}
	trigger := func(w string) string { return aggregateWords[w] }
	for q, want := range map[string][2]string{
		"What is the average age of the visitors whose level is not higher than 4?": {"Age", "avg"},
		"What is the total number of tickets bought?":                               {"Num_of_ticket", "sum"},
		"What is the maximum age and the minimum age?":                              {"Age", "max"}, // one column, named twice
		"What is the total ticket expense?":                                         {"", ""},       // no column's every word
		"What is the average age and the average number of tickets?":                {"", ""},       // two columns
	} {
		col, fn := namedAfter(q, cols, types, trigger)
		if col != want[0] || fn != want[1] {
			t.Errorf("%q: %q %q, want %q %q", q, col, fn, want[0], want[1])
		}
	}
}

// TestAgentActionModel_AggregatesTheColumnTheQuestionNames: an average of
// another column than the one the question names runs again on it.
// (The action model is scripted.)
func TestAgentActionModel_AggregatesTheColumnTheQuestionNames(t *testing.T) {
	call := `{"tool":"select","args":{"table":"parts","aggregate":{"fn":"avg","column":"unit_cost_eur"}}}`
	ans := askExample(t, script(actionModel, call), "What is the maximum rating of the suppliers of the parts?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge {
		t.Fatalf("steps %+v; want the model's average, kgforge's maximum rating, the answer", ans.Steps)
	}
	var q selectCall
	if json.Unmarshal(ans.Steps[1].Args, &q) != nil || q.Aggregate == nil || q.Aggregate.Column != "suppliers.rating" || q.Aggregate.Fn != "max" {
		t.Errorf("kgforge's query %s; want max of suppliers.rating", ans.Steps[1].Args)
	}
	if ans.Text != "4.7" { // Tagus Composites in suppliers.csv
		t.Errorf("answer %q, want 4.7", ans.Text)
	}
}

// TestAgentActionModel_OrdersASuperlativeTheModelFiltered: a superlative
// question written as a filter on a value the question never names runs
// again ordered by the column the superlative names, without that
// filter; a filter the question writes stays. (The action model is
// scripted.)
func TestAgentActionModel_OrdersASuperlativeTheModelFiltered(t *testing.T) {
	call := `{"tool":"select","args":{"table":"suppliers","columns":["country"],"where":[{"column":"name","op":"=","value":"Atlas Saddles"}]}}`
	ans := askExample(t, script(actionModel, call), "Which country is the supplier with the lowest rating in?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge || ans.Text != "United Kingdom" { // Kestrel Alloys, 3.2
		t.Errorf("steps %+v, answer %q; want kgforge's query by rating without the filter, United Kingdom", ans.Steps, ans.Text)
	}
	call = `{"tool":"select","args":{"table":"suppliers","columns":["name"],"where":[{"column":"part_category","op":"=","value":"frames"}]}}`
	ans = askExample(t, script(actionModel, call), "Which supplier of frames has the highest rating?")
	if !ans.Answered || len(ans.Steps) != 3 || ans.Text != "Tagus Composites" { // 4.7 against Kestrel's 3.2
		t.Errorf("steps %+v, answer %q; want the frames filter kept, Tagus Composites", ans.Steps, ans.Text)
	}
}

// TestAgentActionModel_RanksTheGroupTheQuestionNames: a count per
// customer and product, for a question about the most common product,
// is ranked per product alone. (The action model is scripted.)
func TestAgentActionModel_RanksTheGroupTheQuestionNames(t *testing.T) {
	call := `{"tool":"select","args":{"table":"orders","columns":["customer","product"],"group_by":["customer","product"],"aggregate":{"fn":"count","column":"order_id"}}}`
	ans := askExample(t, script(actionModel, call), "What is the most common product in the orders?")
	if !ans.Answered || len(ans.Steps) != 3 || !strings.HasPrefix(ans.Text, "Trail 500") { // 13 of the 40 orders
		t.Errorf("steps %+v, answer %q; want kgforge's count per product, Trail 500", ans.Steps, ans.Text)
	}
}

func TestAgentActionModel_GroupsAnAggregateTheQuestionAsksForEachGroup(t *testing.T) {
	for _, c := range []struct {
		question, call string
		want           string // the group column; "" when the model's query stands
	}{
		{"How many parts are made at each plant?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, "plant"},
		{"What is the average unit cost in EUR per category of part?", `{"table":"parts","aggregate":{"fn":"avg","column":"unit_cost_eur"}}`, "category"},
		{"How many parts does each supplier supply?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, "suppliers.name"}, // by supplier_id, then by the name the key stands for (nameKey)
		// no group asked
		{"How many bicycles were ordered in all?", `{"table":"orders","aggregate":{"fn":"sum","column":"quantity"}}`, ""},
		// grouped already
		{"How many parts are made at each plant?", `{"table":"parts","columns":["plant"],"group_by":["plant"],"aggregate":{"fn":"count","column":"part_id"}}`, ""},
		// "each" names no column
		{"How many parts does each bicycle need?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, ""},
	} {
		ans := askExample(t, script(actionModel, `{"tool":"select","args":`+c.call+`}`), c.question)
		grouped := lastKgforgeSelect(ans)
		switch {
		case c.want == "" && grouped != nil:
			t.Errorf("%q: kgforge ran %s, want the model's query alone", c.question, grouped.Args)
		case c.want != "" && grouped == nil:
			t.Errorf("%q: not grouped; steps %+v", c.question, ans.Steps)
		case c.want != "":
			var got selectCall
			if err := json.Unmarshal(grouped.Args, &got); err != nil || !slices.Equal(got.GroupBy, []string{c.want}) {
				t.Errorf("%q: kgforge ran %s, want it grouped by %s", c.question, grouped.Args, c.want)
			}
			if _, rows, _ := ResultRows(grouped.Result); len(rows) < 2 {
				t.Errorf("%q: %d groups, want one a %s", c.question, len(rows), c.want)
			}
		}
	}
}

// A lookup the model cut to its first row, for a question that asks for
// no order, lists every row; a question with a superlative keeps the cut.
func TestAgentActionModel_DropsALimitTheQuestionDoesNotAsk(t *testing.T) {
	call := `{"table":"parts","columns":["name"],"order_by":{"column":"unit_cost_eur","desc":true},"limit":1}`
	step, ans := askRepaired(t, "List the name of each part.", call)
	if got, ok := repairedQuery(t, "each part", step, ans, true); ok {
		if got.Limit != 0 || got.OrderBy != nil {
			t.Errorf("kgforge ran %s, want no order and no limit", step.Args)
		}
		if _, rows, _ := ResultRows(step.Result); len(rows) < 2 {
			t.Errorf("%d rows, want every part", len(rows))
		}
	}
	step, ans = askRepaired(t, "List the name of the most costly part.", call)
	repairedQuery(t, "most costly", step, ans, false)
}

// A comparative split from its "than" by what is compared puts its
// operator on the model's filter.
func TestAgentActionModel_ReadsAComparativeAcrossItsNoun(t *testing.T) {
	_, ans := askRepaired(t, "How many suppliers have a higher rating than 4.4?",
		`{"table":"suppliers","where":[{"column":"rating","op":"<","value":"4.4"}],"aggregate":{"fn":"count","column":"supplier_id"}}`)
	if ans.Text != "3" { // 4.5, 4.6 and 4.7
		t.Errorf("answer %q, want 3", ans.Text)
	}
}

func TestQuestionNames(t *testing.T) {
	for _, c := range []struct {
		q, col string
		want   bool
	}{
		{"What is the average unit cost of the frames?", "unit_cost_eur", true},
		{"What is the average unit cost of the frames?", "production_plan_scrap.units", true},
		{"What is the average unit cost of the frames?", "rating", false},
		{"What is the heaviest weight?", "weight_kg", true},
		{"What is the average price?", "eur", false}, // a unit alone names nothing
	} {
		if got := questionNames(c.q, c.col); got != c.want {
			t.Errorf("questionNames(%q, %q) = %v, want %v", c.q, c.col, got, c.want)
		}
	}
}

// A superlative's column the question names as well stays the order:
// "the highest unit cost" names unit_cost_eur, though "unit" alone names
// a joined table's units (the scrap records' count), which the
// superlative would pick on its own.
func TestOrderColumnKeepsTheColumnTheQuestionNames(t *testing.T) {
	const q = "Which part made in Brno has the highest unit cost?"
	cols := []string{"part_id", "name", "unit_cost_eur", "production_plan_scrap.units"}
	types := map[string]string{"part_id": "VARCHAR", "name": "VARCHAR", "unit_cost_eur": "DOUBLE", "production_plan_scrap.units": "BIGINT"}
	if got := superlativeColumn(q, cols, types); got != "production_plan_scrap.units" {
		t.Fatalf("superlativeColumn = %q; the case this test guards is gone", got)
	}
	r := &run{ans: Answer{Question: q}, schema: []selectTable{{name: "parts", columns: cols, types: types}}}
	raw, _, err := r.orderColumn(t.Context(), json.RawMessage(`{"table":"parts","columns":["name"],"order_by":{"column":"unit_cost_eur","desc":true},"limit":1}`))
	if err != nil || raw != nil {
		t.Errorf("orderColumn ran %s (%v), want the model's order on unit_cost_eur kept", raw, err)
	}
}
