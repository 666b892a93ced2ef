package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestWhNoun(t *testing.T) {
	for _, c := range []struct {
		question string
		want     []string
	}{
		{"In which country is the supplier of the 48V battery pack based?", []string{"country"}},
		{"Which parts does the supplier from Spain supply?", []string{"part"}},
		{"What feature type name does AirCon have?", []string{"feature", "type", "name"}},
		{"What is the name of the oldest teacher?", nil},
		{"Which of the suppliers is rated best?", nil},
		{"How many parts are there?", nil},
	} {
		if got := whNoun(c.question); !slices.Equal(got, c.want) {
			t.Errorf("whNoun(%q) = %q, want %q", c.question, got, c.want)
		}
	}
}

// askRepaired asks the example bundle question with the action model's
// one query call (no sentence answer: the repairs alone) and returns the
// last query kgforge ran itself, nil when none.
func askRepaired(t *testing.T, question, call string) (*Step, Answer) {
	t.Helper()
	ans := askExampleWith(t, script(actionModel, `{"tool":"select","args":`+call+`}`), Options{Model: "m", NoPassages: true}, question)
	return lastKgforgeSelect(ans), ans
}

// repairedQuery checks that kgforge ran a query of its own after the
// model's when want is true, and none when it is false; ok reports that
// it ran one, got is that query.
func repairedQuery(t *testing.T, question string, step *Step, ans Answer, want bool) (got selectCall, ok bool) {
	t.Helper()
	switch {
	case !want && step != nil:
		t.Errorf("%q: kgforge ran %s, want the model's query alone", question, step.Args)
	case want && step == nil:
		t.Errorf("%q: the model's query stood; steps %+v", question, ans.Steps)
	case want:
		if err := json.Unmarshal(step.Args, &got); err != nil {
			t.Errorf("%q: kgforge ran %s: %v", question, step.Args, err)
			return got, false
		}
		return got, true
	}
	return got, false
}

// The answer's column and table follow the noun the question asks for
// after "which" or "what"; a query that already answers with it stands.
func TestAgentActionModel_AnswersWithWhatTheQuestionAsksFor(t *testing.T) {
	for _, c := range []struct {
		question, call string
		want           string // the query kgforge runs; "" when the model's query stands
		answer         string // a value the answer holds
	}{
		{
			"In which country is the supplier of the Aluminium frame TR5 based?",
			`{"table":"parts","columns":["suppliers.name"],"where":[{"column":"name","op":"=","value":"Aluminium frame TR5"}]}`,
			`{"columns":["suppliers.country"],"table":"parts","where":[{"column":"name","op":"=","value":"Aluminium frame TR5"}]}`,
			"United Kingdom",
		},
		{
			"Which parts does the supplier from Denmark supply?",
			`{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Denmark"}]}`,
			`{"columns":["name"],"table":"parts","where":[{"column":"suppliers.country","op":"=","value":"Denmark"}]}`,
			"",
		},
		// the supplier's name is what "which supplier" asks for
		{
			"Which supplier makes the Aluminium frame TR5?",
			`{"table":"parts","columns":["suppliers.name"],"where":[{"column":"name","op":"=","value":"Aluminium frame TR5"}]}`,
			"", "Kestrel Alloys",
		},
		// the verb the question ends on names the number it asks for
		{
			"What does the Sport saddle cost?",
			`{"table":"parts","columns":["name"],"where":[{"column":"name","op":"=","value":"Sport saddle"}]}`,
			`{"columns":["unit_cost_eur"],"table":"parts","where":[{"column":"name","op":"=","value":"Sport saddle"}]}`,
			"18.5",
		},
		// a verb that names no number: the lookup stands
		{
			"What does Kestrel Alloys supply?",
			`{"table":"parts","columns":["name"],"where":[{"column":"suppliers.name","op":"=","value":"Kestrel Alloys"}]}`,
			"", "Aluminium frame TR5",
		},
		// "which" and the query's own table: its name, or its key when it has none
		{
			"Which supplier has the lowest rating?",
			`{"table":"suppliers","columns":["rating"],"order_by":{"column":"rating","desc":false},"limit":1}`,
			`{"columns":["name"],"table":"suppliers","order_by":{"column":"rating","desc":false},"limit":1}`,
			"Kestrel Alloys",
		},
		{
			"Which order has the largest quantity?",
			`{"table":"orders","columns":["quantity"],"order_by":{"column":"quantity","desc":true},"limit":1}`,
			`{"columns":["order_id"],"table":"orders","order_by":{"column":"quantity","desc":true},"limit":1}`,
			"O-1002",
		},
		// the country is the filter's: the question writes it
		{
			"Which country is Serra Brakes from, Spain?",
			`{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Spain"}]}`,
			"", "",
		},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		if _, ok := repairedQuery(t, c.question, step, ans, c.want != ""); ok && canonicalArgs(step.Args) != canonicalArgs(json.RawMessage(c.want)) {
			t.Errorf("%q: kgforge ran %s, want %s", c.question, step.Args, c.want)
		}
		if c.answer != "" && !strings.Contains(ans.Text, c.answer) {
			t.Errorf("%q: answer %q, want it to hold %q", c.question, ans.Text, c.answer)
		}
	}
}

// A lookup of every row, for a question that names a value of a column
// it does not select, is filtered on that value; the model's order goes
// when the question asks none, and "not" stays.
func TestAgentActionModel_FiltersALookupOnTheValueTheQuestionNames(t *testing.T) {
	for _, c := range []struct {
		question, call, want string
	}{
		{
			"Which products has Ridgeline Bike Shops ordered?",
			`{"table":"orders","columns":["product"],"order_by":{"column":"quantity","desc":true},"limit":1}`,
			`{"columns":["product"],"table":"orders","where":[{"column":"customer","op":"=","value":"Ridgeline Bike Shops"}]}`,
		},
		{
			"Which customers ordered bicycles not built in Porto?",
			`{"table":"orders","columns":["customer"]}`,
			`{"columns":["customer"],"table":"orders","where":[{"column":"plant","op":"!=","value":"Porto"}]}`,
		},
		// the question names the value of the column it asks for
		{"Which customers are Ridgeline Bike Shops?", `{"table":"orders","columns":["customer"]}`, ""},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		if _, ok := repairedQuery(t, c.question, step, ans, c.want != ""); ok && canonicalArgs(step.Args) != canonicalArgs(json.RawMessage(c.want)) {
			t.Errorf("%q: kgforge ran %s, want %s", c.question, step.Args, c.want)
		}
	}
}

// A lookup the model ordered and cut, for a question that asks no order,
// is the lookup of the cells the question names.
func TestAgentActionModel_LooksUpNamedCellsOfAnOrderedQuery(t *testing.T) {
	step, ans := askRepaired(t, "What are the category and plant of the Carbon frame GV7?",
		`{"table":"parts","columns":["name"],"order_by":{"column":"unit_cost_eur"},"limit":1}`)
	want := `{"columns":["category","plant"],"table":"parts","where":[{"column":"name","op":"=","value":"Carbon frame GV7"}]}`
	if step == nil || canonicalArgs(step.Args) != canonicalArgs(json.RawMessage(want)) {
		t.Fatalf("kgforge ran %v, want %s; steps %+v", step, want, ans.Steps)
	}
	if !strings.Contains(ans.Text, "frames") || !strings.Contains(ans.Text, "Porto") {
		t.Errorf("answer %q, want frames and Porto", ans.Text)
	}
	// a question that asks for an order keeps the model's query
	if step, _ := askRepaired(t, "What are the category and plant of the cheapest part?",
		`{"table":"parts","columns":["category","plant"],"order_by":{"column":"unit_cost_eur"},"limit":1}`); step != nil {
		t.Errorf("kgforge ran %s for a question that asks for an order", step.Args)
	}
}

// "Most common" ranks by the number of rows whatever the model ordered by.
func TestAgentActionModel_RanksTheMostCommonValueByCount(t *testing.T) {
	step, ans := askRepaired(t, "What is the most common status of the customer orders?",
		`{"table":"orders","columns":["status"],"order_by":{"column":"order_date","desc":true},"limit":1}`)
	if step == nil {
		t.Fatalf("the model's query stood; steps %+v", ans.Steps)
	}
	var got selectCall
	if err := json.Unmarshal(step.Args, &got); err != nil || got.Aggregate == nil || got.Aggregate.Fn != "count" || !slices.Equal(got.GroupBy, []string{"status"}) || got.OrderBy == nil || !got.OrderBy.Desc {
		t.Errorf("kgforge ran %s, want a count per status, the largest first", step.Args)
	}
	// the latest order's status is asked by time, not by count
	if step, _ := askRepaired(t, "What is the status of the most recent customer order?",
		`{"table":"orders","columns":["status"],"order_by":{"column":"order_date","desc":true},"limit":1}`); step != nil {
		t.Errorf("kgforge ran %s for the latest order", step.Args)
	}
}

// A count grouped by a key is grouped by the name the key stands for,
// unless the question asks for the key.
func TestAgentActionModel_GroupsByTheNameAKeyStandsFor(t *testing.T) {
	call := `{"table":"parts","columns":["supplier_id"],"group_by":["supplier_id"],"aggregate":{"fn":"count","column":"part_id"}}`
	step, ans := askRepaired(t, "How many parts come from each supplier?", call)
	if step == nil {
		t.Fatalf("the model's query stood; steps %+v", ans.Steps)
	}
	var got selectCall
	if err := json.Unmarshal(step.Args, &got); err != nil || !slices.Equal(got.GroupBy, []string{"suppliers.name"}) || !slices.Equal(got.Columns, []string{"suppliers.name"}) {
		t.Errorf("kgforge ran %s, want it grouped by suppliers.name", step.Args)
	}
	if !strings.Contains(ans.Text, "Kestrel Alloys, 3") {
		t.Errorf("answer %q, want Kestrel Alloys' 3 parts", ans.Text)
	}
	if step, _ := askRepaired(t, "How many parts come from each supplier id?", call); step != nil {
		t.Errorf("kgforge ran %s for a question that asks for the key", step.Args)
	}
}

// A lookup selects the columns the question lists, in its order.
func TestAgentActionModel_SelectsTheColumnsTheQuestionLists(t *testing.T) {
	for _, c := range []struct {
		question, call string
		want           []string // the columns kgforge selects; nil when the model's query stands
	}{
		{"What are the plant and category of every part?", `{"table":"parts","columns":["name","plant"]}`, []string{"plant", "category"}},
		// the key only when asked for
		{"What are the supplier id and rating of every supplier from Denmark?", `{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Denmark"}]}`, []string{"supplier_id", "rating"}},
		// a filter's column is a condition, not an answer
		{"What are the names and categories of the parts made at the plant in Brno?", `{"table":"parts","columns":["name","category"],"where":[{"column":"plant","op":"=","value":"Brno"}]}`, nil},
		// one column named: the model's query stands
		{"What is the rating of every supplier?", `{"table":"suppliers","columns":["name","rating"]}`, nil},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		if got, ok := repairedQuery(t, c.question, step, ans, c.want != nil); ok && !slices.Equal(got.Columns, c.want) {
			t.Errorf("%q: kgforge ran %s, want the columns %q", c.question, step.Args, c.want)
		}
	}
}

func TestNamedList(t *testing.T) {
	singer := []string{"Singer_ID", "Name", "Country", "Song_Name", "Song_release_year", "Age"}
	for _, c := range []struct {
		question string
		want     []string
	}{
		{"Show name, country, age for all singers ordered by age.", []string{"Name", "Country", "Age"}},
		{"What is the song name and age of the youngest singer?", []string{"Song_Name", "Age"}},
		{"What is the age and country of the singer named Joe Sharp?", []string{"Age", "Country"}},
		{"What is the name of the singer with the most songs, and her age?", nil},
		{"What is the status of the most recent customer order?", nil},
	} {
		if got := namedList(c.question, singer); !slices.Equal(got, c.want) {
			t.Errorf("namedList(%q) = %q, want %q", c.question, got, c.want)
		}
	}
}

func TestCountNoun(t *testing.T) {
	for q, want := range map[string][]string{
		"Count the number of poker players.":   {"poker", "player"},
		"How many purchase orders are there?":  {"purchase", "order"},
		"What is the total number of singers?": {"singer"},
		"Count all parts made in Brno.":        {"part", "made"},
		"What is the name of the supplier?":    nil,
		"How many":                             nil,
		"Count the":                            nil,
		"What is the number of":                nil,
	} {
		if got := countNoun(q); !slices.Equal(got, want) {
			t.Errorf("countNoun(%q) = %q, want %q", q, got, want)
		}
	}
}

// A count of a whole table is a count of the table the question counts.
func TestAgentActionModel_CountsTheTableTheQuestionCounts(t *testing.T) {
	for _, c := range []struct {
		question, call, want string // want: the table kgforge counts; "" when the model's query stands
	}{
		{"How many orders are there?", `{"table":"suppliers","aggregate":{"fn":"count","column":"supplier_id"}}`, "orders"},
		{"How many suppliers are there in all?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, "suppliers"},
		{"How many parts are there?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, ""},
		// a filtered count is about the filter's table
		{"How many suppliers make frames?", `{"table":"parts","where":[{"column":"category","op":"=","value":"frames"}],"aggregate":{"fn":"count_distinct","column":"supplier_id"}}`, ""},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		if got, ok := repairedQuery(t, c.question, step, ans, c.want != ""); ok && (got.Table != c.want || got.Aggregate == nil || got.Aggregate.Fn != "count") {
			t.Errorf("%q: kgforge ran %s, want a count of %s", c.question, step.Args, c.want)
		}
	}
}

func TestWhTable(t *testing.T) {
	tables := []selectTable{{name: "orders"}, {name: "purchasing_purchase_orders"}, {name: "poker_player_people"}, {name: "poker_player_poker_player"}, {name: "concert_singer_singer"}, {name: "concert_singer_singer_in_concert"}}
	for _, c := range []struct {
		noun []string
		want string
	}{
		{[]string{"order"}, "orders"},
		{[]string{"purchase", "order"}, "purchasing_purchase_orders"},
		{[]string{"poker", "player"}, "poker_player_poker_player"},
		{[]string{"singer"}, "concert_singer_singer"},
		{[]string{"concert"}, "concert_singer_singer_in_concert"},
		{[]string{"customer"}, ""},
	} {
		if got := whTable(c.noun, tables); got != c.want {
			t.Errorf("whTable(%q) = %q, want %q", c.noun, got, c.want)
		}
	}
}

// A count grouped by the table's key counts one row a group: the rows are
// listed (and named) instead, unless the question counts.
func TestAgentActionModel_ListsTheRowsOfACountPerKey(t *testing.T) {
	call := `{"table":"suppliers","columns":["supplier_id"],"group_by":["supplier_id"],"aggregate":{"fn":"count","column":"supplier_id"},"where":[{"column":"rating","op":">","value":"4.4"}]}`
	step, ans := askRepaired(t, "Which suppliers have a rating above 4.4?", call)
	if got, ok := repairedQuery(t, "rating above 4.4", step, ans, true); ok && (got.Aggregate != nil || len(got.GroupBy) > 0) {
		t.Errorf("kgforge ran %s, want the plain list", step.Args)
	}
	if !strings.Contains(ans.Text, "Tagus Composites") || strings.Contains(ans.Text, "1") {
		t.Errorf("answer %q, want the suppliers' names without a count", ans.Text)
	}
	_, ans = askRepaired(t, "How many suppliers have a rating above 4.4?", call)
	for _, s := range ans.Steps {
		var got selectCall
		if s.By == StepByKgforge && s.Tool == ToolSelect && json.Unmarshal(s.Args, &got) == nil && got.Aggregate == nil {
			t.Errorf("kgforge ran %s for a question that counts", s.Args)
		}
	}
}

// A count of rows for a question that counts an amount the rows hold is
// the sum of the column that holds it; a count of the rows themselves
// stands.
func TestAgentActionModel_SumsTheAmountTheQuestionCounts(t *testing.T) {
	countUrbanmove := `{"table":"orders","where":[{"column":"customer","op":"=","value":"Urbanmove Rentals"}],"aggregate":{"fn":"count","column":"order_id"}}`
	for _, c := range []struct {
		question, call string
		want           string // the column kgforge sums; "" when the model's query stands
		answer         string
	}{
		// 120 + 80 + 100 + 40 units in four orders
		{"How many units did Urbanmove Rentals order in total?", countUrbanmove, "quantity", "340"},
		// things no table or column is named for, counted "in total"
		{"How many bicycles did Urbanmove Rentals order in total?", countUrbanmove, "quantity", "340"},
		// or in one row, named by its key: a count of one row is no answer
		{"How many bicycles were in order O-1002?", `{"table":"orders","where":[{"column":"order_id","op":"=","value":"O-1002"}],"aggregate":{"fn":"count","column":"order_id"}}`, "quantity", "120"},
		// the orders themselves
		{"How many orders did Urbanmove Rentals place?", countUrbanmove, "", "4"},
		{"How many orders did Urbanmove Rentals place in total?", countUrbanmove, "", "4"},
		// a column's own word names what is counted, not an amount
		{"How many products did Urbanmove Rentals order in total?", countUrbanmove, "", ""},
		{"How many different products did Urbanmove Rentals order?", `{"table":"orders","where":[{"column":"customer","op":"=","value":"Urbanmove Rentals"}],"aggregate":{"fn":"count_distinct","column":"product"}}`, "", "2"},
		// "units" of parts: unit_cost_eur holds a price, not an amount
		{"How many units of parts are made in Brno?", `{"table":"parts","where":[{"column":"plant","op":"=","value":"Brno"}],"aggregate":{"fn":"count","column":"part_id"}}`, "", ""},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		got, ok := repairedQuery(t, c.question, step, ans, c.want != "")
		if ok && (got.Aggregate == nil || got.Aggregate.Fn != "sum" || got.Aggregate.Column != c.want || len(got.Where) != 1) {
			t.Errorf("%q: kgforge ran %s, want the sum of %s with the model's filter", c.question, step.Args, c.want)
		}
		if c.answer != "" && ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}

func TestCountedColumn(t *testing.T) {
	farm := []string{"Farm_ID", "Year", "Total_Horses", "Working_Horses", "Cows", "Sheep_and_Goats"}
	scrap := []string{"batch_id", "part_id", "defect", "units", "supplier_id"}
	parts := []string{"part_id", "name", "unit_cost_eur", "plant", "suppliers.rating"}
	plan := []string{"model", "plant", "planned_units", "week"}
	types := map[string]string{
		"Farm_ID": "BIGINT", "Year": "BIGINT", "Total_Horses": "DOUBLE", "Working_Horses": "DOUBLE", "Cows": "DOUBLE", "Sheep_and_Goats": "DOUBLE",
		"batch_id": "VARCHAR", "part_id": "VARCHAR", "defect": "VARCHAR", "units": "BIGINT", "supplier_id": "VARCHAR",
		"name": "VARCHAR", "unit_cost_eur": "DOUBLE", "plant": "VARCHAR", "suppliers.rating": "DOUBLE",
		"model": "VARCHAR", "planned_units": "BIGINT", "week": "VARCHAR",
		"ID": "BIGINT", "Age": "BIGINT", "Level_of_membership": "BIGINT",
	}
	for _, c := range []struct {
		question string
		columns  []string
		want     string
	}{
		{"What is the total number of horses on farms?", farm, "Total_Horses"},
		{"How many cows are there?", farm, "Cows"},
		{"How many farms are there?", farm, ""},
		{"How many scrap units were recorded in total?", scrap, "units"},
		{"How many batches were scrapped?", scrap, ""},
		{"How many units of parts are made in Brno?", parts, ""},
		{"How many units are planned for week 12?", plan, "planned_units"},
		{"How many units were planned?", plan, "planned_units"},
		{"How many plants plan the City 300?", plan, ""},
		// the visitors are counted, not their ages
		{"How many visitors below age 30 are there?", []string{"ID", "Age", "Level_of_membership"}, ""},
		{"How many visitors with an age under 30 are there?", []string{"ID", "Age", "Level_of_membership"}, ""},
	} {
		if got := countedColumn(countNoun(c.question), c.columns, types); got != c.want {
			t.Errorf("%q: counted column %q, want %q", c.question, got, c.want)
		}
	}
}

// An aggregate over a table that cannot hold the value the question names
// runs on the table that holds it.
func TestAgentActionModel_AggregatesTheTableThatHoldsTheValue(t *testing.T) {
	countParts := `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`
	for _, c := range []struct {
		question, call string
		table          string // the table kgforge's last query reads; "" when the model's query stands
		answer         string
	}{
		// orders hold "City 300"; then the units are summed (sumCounted)
		{"How many units of the City 300 were ordered in total?", countParts, "orders", "398"},
		{"How many orders did Urbanmove Rentals place?", countParts, "orders", "4"},
		// a filter on the value the question writes, which only orders hold
		{"How many orders of the Volt E8 are there?", `{"table":"parts","where":[{"column":"name","op":"=","value":"Volt E8"}],"aggregate":{"fn":"count","column":"part_id"}}`, "orders", "11"},
		// the value fails the model's query on a number column: moved all the same
		{"How many orders of the Volt E8 are there?", `{"table":"parts","where":[{"column":"unit_cost_eur","op":"=","value":"Volt E8"}],"aggregate":{"fn":"count","column":"part_id"}}`, "orders", "11"},
		// one value the query's table holds, one only orders hold: orders, filtered on both
		{"How many orders did Cicla Distribution place for the Porto plant?", `{"table":"parts","where":[{"column":"plant","op":"=","value":"Porto"}],"aggregate":{"fn":"count","column":"part_id"}}`, "orders", "4"},
		// a value the query's table holds: the filter stands
		{"How many parts are made in Brno?", `{"table":"parts","where":[{"column":"plant","op":"=","value":"Brno"}],"aggregate":{"fn":"count","column":"part_id"}}`, "", "7"},
		// parts reach suppliers.name: the model's table can filter on it
		{"How many parts does Kestrel Alloys supply?", countParts, "parts", "3"},
		// the question names no value
		{"How many parts are there?", countParts, "", "15"},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		got, ok := repairedQuery(t, c.question, step, ans, c.table != "")
		if ok && got.Table != c.table {
			t.Errorf("%q: kgforge ran %s, want a query of %s", c.question, step.Args, c.table)
		}
		if ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}

// A lookup of the rows a "how many" question counts by its table's name
// becomes their count; a lookup of a number stands.
func TestAgentActionModel_CountsTheRowsTheQuestionCounts(t *testing.T) {
	for _, c := range []struct {
		question, call string
		count          bool
		answer         string
	}{
		{"How many suppliers are based in Portugal?", `{"table":"suppliers","columns":["name"],"where":[{"column":"country","op":"=","value":"Portugal"}]}`, true, "1"},
		{"How many parts does Kestrel Alloys supply?", `{"table":"parts","columns":["part_id"],"where":[{"column":"suppliers.name","op":"=","value":"Kestrel Alloys"}],"limit":1}`, true, "3"},
		// the count of another table's rows is not this lookup's
		{"How many parts are there?", `{"table":"suppliers","columns":["name"]}`, false, ""},
		// a number looked up: "How many" asks for the number itself
		{"How many orders' worth of bicycles did order O-1002 hold?", `{"table":"orders","columns":["quantity"],"where":[{"column":"order_id","op":"=","value":"O-1002"}]}`, false, "120"},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		got, ok := repairedQuery(t, c.question, step, ans, c.count)
		if ok && (got.Aggregate == nil || got.Aggregate.Fn != "count" || got.Limit != 0) {
			t.Errorf("%q: kgforge ran %s, want the count of the rows", c.question, step.Args)
		}
		if c.answer != "" && ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}

// Lookups the question shapes: the column "What is the X of …" asks for,
// a superlative's own column kept when the question names it, the one
// date column for "earliest", and every value the question writes.
func TestAgentActionModel_LooksUpWhatTheQuestionShapes(t *testing.T) {
	for _, c := range []struct{ question, call, answer string }{
		{"What is the rating of the supplier of the Carbon frame GV7?", `{"table":"parts","columns":["suppliers.name"],"where":[{"column":"name","op":"=","value":"Carbon frame GV7"}]}`, "4.7"},
		// "name" asks for the supplier's name: the lookup stands
		{"What is the name of the supplier of the Carbon frame GV7?", `{"table":"parts","columns":["suppliers.name"],"where":[{"column":"name","op":"=","value":"Carbon frame GV7"}]}`, "Tagus Composites"},
		// "unit" alone names the scrap table's units; "unit cost" names the
		// model's column, which stays (and Brno becomes a filter: 310 EUR)
		{"Which part made in Brno has the highest unit cost?", `{"table":"parts","columns":["name"],"order_by":{"column":"unit_cost_eur","desc":true},"limit":1}`, "48V battery pack"},
		// "earliest" ranks by the one date column
		{"What is the date of the earliest order?", `{"table":"orders","columns":["order_date"],"order_by":{"column":"quantity","desc":true},"limit":1}`, "2025-01-08"},
		// a value the question writes, beside the model's comparison
		{"List the parts made in Brno that cost less than 90 euros.", `{"table":"parts","columns":["name"],"where":[{"column":"unit_cost_eur","op":"<","value":"90"}]}`, "28-inch city wheelset, 8-speed hub gear kit, E-bike disc brake set, Comfort saddle"},
	} {
		_, ans := askRepaired(t, c.question, c.call)
		if ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q; steps %+v", c.question, ans.Text, c.answer, ans.Steps)
		}
	}
}

// An aggregate per group, for a question that names the group it asks
// about, is the aggregate of that group's rows.
func TestAgentActionModel_AggregatesTheGroupTheQuestionNames(t *testing.T) {
	perCategory := `{"table":"parts","columns":["category"],"group_by":["category"],"aggregate":{"fn":"count","column":"part_id"}}`
	perPlant := `{"table":"parts","columns":["plant"],"group_by":["plant"],"aggregate":{"fn":"count","column":"part_id"}}`
	for _, c := range []struct {
		question, call string
		ungrouped      bool
		answer         string
	}{
		// the category's group, then the plant the question writes too (filterEveryValue)
		{"How many parts in the wheels category are made in Porto?", perCategory, true, "2"},
		{"How many parts are made in Brno?", perPlant, true, "7"},
		{"What is the average unit cost of the saddles?", `{"table":"parts","columns":["category"],"group_by":["category"],"aggregate":{"fn":"avg","column":"unit_cost_eur"}}`, true, "17.25"},
		// a group in turn, or the group that ranks first: the groups stand
		{"How many parts are made in each plant?", perPlant, false, ""},
		{"Which plant makes the most parts?", `{"table":"parts","columns":["plant"],"group_by":["plant"],"aggregate":{"fn":"count","column":"part_id"},"order_by":{"column":"aggregate","desc":true},"limit":1}`, false, ""},
		// no value of the group column written
		{"How many parts are there?", perPlant, false, ""},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		got, ok := repairedQuery(t, c.question, step, ans, c.ungrouped)
		if ok && len(got.GroupBy) > 0 {
			t.Errorf("%q: kgforge ran %s, want no groups", c.question, step.Args)
		}
		if c.answer != "" && ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}

// A word the names of several rows share ("wheelset") filters a query
// over every row on it; a word of the table's or a column's name, or of a
// value the question writes, does not.
func TestAgentActionModel_FiltersOnTheKindTheNamesShare(t *testing.T) {
	cheapest := `{"table":"parts","columns":["name"],"order_by":{"column":"unit_cost_eur","desc":false},"limit":1}`
	for _, c := range []struct {
		question, call string
		filtered       bool
		answer         string
	}{
		{"Which wheelset is the cheapest?", cheapest, true, "28-inch city wheelset"},
		{"What is the cheapest frame?", cheapest, true, "Aluminium frame CT3"},
		// the model's column, which the question does not name, gives way to the names'
		{"What is the cheapest frame?", `{"table":"parts","columns":["category"],"order_by":{"column":"unit_cost_eur","desc":false},"limit":1}`, true, "Aluminium frame CT3"},
		// a column the question names stays
		{"What is the unit cost of the cheapest wheelset?", `{"table":"parts","columns":["unit_cost_eur"],"order_by":{"column":"unit_cost_eur","desc":false},"limit":1}`, true, "64"},
		// "part" names the table: every part
		{"What is the cheapest part?", cheapest, false, "Comfort saddle"},
		// the value the question writes is the filter's (addFilter), not a kind
		{"What is the cost of the Sport saddle?", `{"table":"parts","columns":["unit_cost_eur"],"where":[{"column":"name","op":"=","value":"Sport saddle"}]}`, false, "18.5"},
	} {
		step, ans := askRepaired(t, c.question, c.call)
		_, ok := repairedQuery(t, c.question, step, ans, c.filtered)
		if ok && !strings.Contains(string(step.Args), `"op":"contains"`) {
			t.Errorf("%q: kgforge ran %s, want a contains filter", c.question, step.Args)
		}
		if ans.Text != c.answer {
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}
