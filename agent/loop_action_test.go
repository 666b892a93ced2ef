package agent

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"kgforge/internal/duck"
	"kgforge/kg"
	"kgforge/llm"
)

var actionModel = llm.ModelInfo{Name: "kgforge-agent", Capabilities: []string{"completion"}, Specialist: ActionPrompt}

func TestAgentActionModel_PromptListsTheTablesNotTheFewShotLog(t *testing.T) {
	m := script(actionModel,
		`{"tool":"select","args":{"table":"no_such_table","columns":["name"]}}`,
		`{"tool":"select","args":{"table":"suppliers","columns":["name"]}}`,
	)
	a := newAgent(t, m, Options{})
	ans, err := a.Ask(context.Background(), "What are the names of the suppliers?")
	if err != nil {
		t.Fatal(err)
	}
	if a.Format() != FormatCompletion || !ans.Answered || ans.Text != "Kestrel Alloys" || len(m.gens) != 2 || len(ans.Steps) != 3 {
		t.Fatalf("format %s, %d generates, answer %+v", a.Format(), len(m.gens), ans)
	}
	first := m.gens[0].Prompt
	for _, want := range []string{"Answer the question about the dataset", "Tools: ls, cat,", "- suppliers (0 rows): supplier_id ; name ", "\nQuestion: What are the names of the suppliers?\nCall: "} {
		if !strings.Contains(first, want) {
			t.Errorf("the first prompt lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "### Log") || !strings.HasSuffix(first, "\nCall: ") || m.gens[0].Schema == nil || !m.gens[0].Raw || !m.gens[0].Logprobs {
		t.Errorf("want the action prompt, raw, with a schema, asking for log probabilities; got:\n%s", first)
	}
	// The query failed (no such table), so its error went back to the model.
	if !strings.HasPrefix(m.gens[1].Prompt, first+`{"tool":"select"`) || !strings.Contains(m.gens[1].Prompt, "\nResult:\n<result tool=\"select\">\nerror: ") ||
		!strings.HasSuffix(m.gens[1].Prompt, "</result>\nCall: ") {
		t.Errorf("second prompt:\n%s", m.gens[1].Prompt)
	}
}

// TestAgentActionModel_KgforgeAnswersWithTheQueryResult: once the action
// model's typed query returns its rows, kgforge writes the answer from
// them (every value as the result has it, the rows cited by the key the
// result shows), with the probability of the least likely token of the
// model's query as the confidence, and the question ends after one model call. A result cut
// at its row limit goes back to the model instead.
func TestAgentActionModel_KgforgeAnswersWithTheQueryResult(t *testing.T) {
	m := script(actionModel, `{"tool":"select","args":{"table":"parts","columns":["part_id","name"],"where":[{"column":"plant","op":"=","value":"Brno"}]}}`)
	m.replies[0].Logprobs = []float64{-0.1, -0.3}
	ans := askExample(t, m, "Which parts are made in Brno?")
	if !ans.Answered || len(m.gens) != 1 || len(ans.Steps) != 2 || ans.Steps[1].Tool != ToolAnswer || ans.Steps[1].By != StepByKgforge || ans.Steps[0].By != "" {
		t.Fatalf("%d generates, answer %+v", len(m.gens), ans)
	}
	_, rows, ok := ResultRows(ans.Steps[0].Result)
	if !ok || len(rows) != 7 || ans.Text != ResultAnswerText(rows) || !strings.Contains(ans.Text, "P012, 48V battery pack") {
		t.Errorf("answer %q from the result %q", ans.Text, ans.Steps[0].Result)
	}
	if want := math.Exp(-0.3); math.Abs(ans.Confidence-want) > 1e-9 {
		t.Errorf("confidence %v, want %v", ans.Confidence, want)
	}
	if len(ans.Citations) != len(rows) || ans.Citations[0].Kind != "row" || ans.Citations[0].Table != "parts" || ans.Citations[0].ID != rows[0][0] {
		t.Errorf("citations %+v for rows %q", ans.Citations, rows)
	}
}

// TestAgentActionModel_CitesTheRowsByTheirKey: the answer kgforge writes
// cites the rows it rests on, by a key of their table the result shows
// (the demo's question: a supplier's name is a key of suppliers), or, when
// the result shows none, by the key kgforge looks up with the same query.
func TestAgentActionModel_CitesTheRowsByTheirKey(t *testing.T) {
	for _, c := range []struct {
		question, call, answer string
		ids                    []string
	}{
		{"Which supplier supplies the battery pack?", `{"table":"suppliers","columns":["name"],"where":[{"column":"parts.name","op":"contains","value":"battery pack"}]}`, "Lumen Cell Systems", []string{"Lumen Cell Systems", "S005"}},
		{"What is the rating of the battery pack's supplier?", `{"table":"suppliers","columns":["rating"],"where":[{"column":"parts.name","op":"contains","value":"battery pack"}]}`, "4.5", []string{"S005"}},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered || ans.Text != c.answer || len(ans.Steps) != 2 {
			t.Fatalf("%s: answer %+v", c.question, ans)
		}
		if len(ans.Citations) != 1 || ans.Citations[0].Kind != "row" || ans.Citations[0].Table != "suppliers" || !slices.Contains(c.ids, ans.Citations[0].ID) {
			t.Errorf("%s: citations %+v, want the row of Lumen Cell Systems (%v)", c.question, ans.Citations, c.ids)
		}
	}
}

func TestResultRowsAndText(t *testing.T) {
	h, rows, ok := ResultRows("name\tn\nKestrel Alloys\t2\nLumen\t1")
	if !ok || !slices.Equal(h, []string{"name", "n"}) || len(rows) != 2 || ResultAnswerText(rows) != "Kestrel Alloys, 2; Lumen, 1" {
		t.Errorf("ResultRows = %q %q %v; text %q", h, rows, ok, ResultAnswerText(rows))
	}
	if _, rows, _ := ResultRows("name\nA\nB"); ResultAnswerText(rows) != "A, B" {
		t.Errorf("one column: %q", ResultAnswerText(rows))
	}
	if _, rows, _ := ResultRows("name\nKestrel Alloys\nKestrel Alloys\nLumen\nKestrel Alloys"); ResultAnswerText(rows) != "Kestrel Alloys, Lumen" {
		t.Errorf("repeated values: %q", ResultAnswerText(rows))
	}
	if _, rows, _ := ResultRows("name\tn\nA\t1\nA\t1\nA\t2"); ResultAnswerText(rows) != "A, 1; A, 2" {
		t.Errorf("repeated rows: %q", ResultAnswerText(rows))
	}
	if _, rows, ok := ResultRows("count\n"); !ok || ResultAnswerText(rows[:0]) != "No rows match." {
		t.Errorf("no rows: %v", ok)
	}
	if _, _, ok := ResultRows("name\nA\n… (first 50 rows; add a WHERE, an aggregate or a LIMIT)"); ok {
		t.Error("a cut result read as whole")
	}
}

func TestCheckFormat_TheActionModelTakesTheCompletionFormatOnly(t *testing.T) {
	for _, f := range []string{"", FormatCompletion} {
		if got, err := checkFormat(f, actionModel); err != nil || got != FormatCompletion {
			t.Errorf("checkFormat(%q) = %q, %v; want completion", f, got, err)
		}
	}
	for _, f := range []string{FormatJSON, FormatNative} {
		if got, err := checkFormat(f, actionModel); !errors.Is(err, ErrFormat) || errors.Is(err, ErrExtractionModel) || got != "" ||
			!strings.Contains(err.Error(), "action model") {
			t.Errorf("checkFormat(%q) = %q, %v; want a format error naming the action model", f, got, err)
		}
	}
}

func TestTableLines_TypesRangesSamplesJoinsAndABound(t *testing.T) {
	data := []kg.Table{
		{Name: "orders", Rows: 3, Columns: []kg.Column{
			{Name: "id", Type: "BIGINT", Min: "1", Max: "3", Samples: []string{"1", "2", "3"}},
			{Name: "status", Type: "VARCHAR", Min: "late", Max: "open", Samples: []string{"open", "late\nvery", "shipped", "held"}},
			{Name: "customer", Type: "VARCHAR"},
		}, ForeignKeys: []kg.ForeignKey{{Column: "customer", RefTable: "customers", RefColumn: "cid"}}},
		{Name: "customers", Rows: 2, Columns: []kg.Column{{Name: "cid", Type: "VARCHAR", Samples: []string{"c1", "c2"}}}},
	}
	got := tableLines(data, "", nil)
	want := "- customers (2 rows): cid VARCHAR e.g. c1 | c2\n" +
		"  joins: orders.customer = customers.cid\n" +
		"- orders (3 rows): id BIGINT 1 … 3; status VARCHAR e.g. open | late very | shipped; customer VARCHAR\n" +
		"  joins: orders.customer = customers.cid"
	if got != want {
		t.Errorf("tableLines:\n%s\nwant:\n%s", got, want)
	}
	if got := tableLines(nil, "", nil); got != "(none)" {
		t.Errorf("no tables: %q", got)
	}
	var many []kg.Table
	for i := range 20 {
		cols := make([]kg.Column, 20)
		for j := range cols {
			cols[j] = kg.Column{Name: strings.Repeat("c", 10) + string(rune('a'+j)), Type: "VARCHAR", Samples: []string{strings.Repeat("v", 40)}}
		}
		many = append(many, kg.Table{Name: "t" + string(rune('a'+i)), Columns: cols})
	}
	got = tableLines(many, "", nil)
	if len(got) > maxTableListing || !strings.HasSuffix(got, "more tables (ls lists them)") {
		t.Errorf("a long listing: %d bytes, ends %q", len(got), got[max(0, len(got)-60):])
	}
}

func TestTableLines_TheTablesTheQuestionNamesComeFirst(t *testing.T) {
	data := []kg.Table{
		{Name: "orders", Rows: 3, Columns: []kg.Column{{Name: "order_id", Type: "VARCHAR"}, {Name: "status", Type: "VARCHAR", Samples: []string{"late"}}}},
		{Name: "parts", Rows: 2, Columns: []kg.Column{{Name: "part_id", Type: "VARCHAR"}, {Name: "unitCost", Type: "DOUBLE"}}},
		{Name: "suppliers", Rows: 2, Columns: []kg.Column{{Name: "supplier_id", Type: "VARCHAR"}, {Name: "name", Type: "VARCHAR"}}},
	}
	first := func(q string) string {
		line, _, _ := strings.Cut(tableLines(data, q, nil), " (")
		return strings.TrimPrefix(line, "- ")
	}
	for q, want := range map[string]string{
		"Which suppliers are there?":          "suppliers",
		"What is the unit cost of each part?": "parts", // camelCase split, plural dropped
		"Which orders are late?":              "orders",
		"Hello?":                              "orders", // no word in common: alphabetical
	} {
		if got := first(q); got != want {
			t.Errorf("%q: first table %s, want %s", q, got, want)
		}
	}
}

// TestLinkValues_FindsTheValuesTheQuestionNames runs value linking on the
// example bundle (real tables, DuckDB's sandbox): the column values that
// share words with the question are found and listed first, and rank
// their table first; question words that name no value find nothing.
func TestLinkValues_FindsTheValuesTheQuestionNames(t *testing.T) {
	b := exampleBundle(t)
	tb, err := NewToolbox(context.Background(), b, duck.SandboxLimits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tb.Close() })
	data, err := b.Tables()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		question, table, column string
		want                    []string
		firstListed             string
	}{
		{"Which supplier supplies the battery pack?", "parts", "name", []string{"48V battery pack"}, "parts"},
		{"Which customers have an order with the status delayed?", "orders", "status", []string{"delayed"}, "orders"},
		{"How many parts are made in Brno?", "parts", "plant", []string{"Brno"}, "parts"},
	}
	for _, c := range cases {
		linked, err := tb.linkValues(context.Background(), data, c.question)
		if err != nil {
			t.Fatal(err)
		}
		if got := linked[linkKey(c.table, c.column)]; !slices.Equal(got, c.want) {
			t.Errorf("%q: %s.%s linked %q, want %q (all: %q)", c.question, c.table, c.column, got, c.want, linked)
		}
		listing := tableLines(data, c.question, linked)
		if !strings.HasPrefix(listing, "- "+c.firstListed+" (") {
			t.Errorf("%q: listed first:\n%s", c.question, listing)
		}
		if !strings.Contains(listing, " e.g. "+c.want[0]) {
			t.Errorf("%q: the listing does not show %q first among %s.%s's values:\n%s", c.question, c.want[0], c.table, c.column, listing)
		}
	}
	linked, err := tb.linkValues(context.Background(), data, "How many are there in total?")
	if err != nil || len(linked) != 0 {
		t.Errorf("a question of stop words only: linked %q, %v", linked, err)
	}
}

// TestAgentActionModel_MovesAFilterToTheColumnThatHoldsItsValue: the
// value the question names, filtered on a column that does not hold it,
// gives no rows; kgforge runs the query again with the filter on the
// column where value linking found the value, as its own step, and
// answers from that result. A value the question does not name stays
// where the model put it.
func TestAgentActionModel_MovesAFilterToTheColumnThatHoldsItsValue(t *testing.T) {
	for _, c := range []struct {
		question, call string
		moved          bool
	}{
		{"Which parts are made in Brno?", `{"table":"parts","columns":["part_id","name"],"where":[{"column":"supplier_id","op":"=","value":"brno"}]}`, true},
		{"Which parts are made in Brno?", `{"table":"parts","columns":["part_id","name"],"where":[{"column":"name","op":"contains","value":"Brno"}]}`, true},
		// a value the question does not name, copied from the listing: the question's value instead
		{"Which parts are made in Brno?", `{"table":"parts","columns":["part_id","name"],"where":[{"column":"supplier_id","op":"=","value":"Oslo"}]}`, true},
		// on a number column the value fails the query: moved all the same
		{"Which parts are made in Brno?", `{"table":"parts","columns":["part_id","name"],"where":[{"column":"unit_cost_eur","op":"=","value":"Brno"}]}`, true},
		// the question names no value the bundle holds: nothing to move
		{"Which parts are made in Oslo?", `{"table":"parts","columns":["part_id","name"],"where":[{"column":"supplier_id","op":"=","value":"Oslo"}]}`, false},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered || len(m.gens) != 1 {
			t.Fatalf("%s: %d generates, answer %+v", c.call, len(m.gens), ans)
		}
		if !c.moved {
			if len(ans.Steps) != 2 || ans.Text != ResultAnswerText(nil) {
				t.Errorf("%s: steps %+v, answer %q; want the model's empty result answered as it is", c.call, ans.Steps, ans.Text)
			}
			continue
		}
		if len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge || !strings.Contains(string(ans.Steps[1].Args), `"column":"plant"`) {
			t.Fatalf("%s: steps %+v; want the model's query, kgforge's on plant, the answer", c.call, ans.Steps)
		}
		_, rows, _ := ResultRows(ans.Steps[1].Result)
		if len(rows) != 7 || ans.Text != ResultAnswerText(rows) || len(ans.Citations) != 7 {
			t.Errorf("%s: answer %q (%d citations) from %q", c.call, ans.Text, len(ans.Citations), ans.Steps[1].Result)
		}
	}
}

// askExample asks the scripted model's agent one question over the
// example's bundle.
func askExample(t *testing.T, m LLM, question string) Answer {
	t.Helper()
	return askExampleWith(t, m, Options{Model: "m"}, question)
}

// askExampleWith is askExample with the agent's options.
func askExampleWith(t *testing.T, m LLM, opts Options, question string) Answer {
	t.Helper()
	a, err := New(context.Background(), m, exampleBundle(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ans, err := a.Ask(context.Background(), question)
	if err != nil {
		t.Fatal(err)
	}
	return ans
}

func TestAgentActionModel_AddsTheFilterAnAggregateLeftOut(t *testing.T) {
	for _, c := range []struct {
		question, call string
		added          bool
	}{
		// a count over the whole table although the question names a plant
		{"How many parts are made in Brno?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, true},
		// the question names no value: the count stands
		{"How many parts are there?", `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, false},
		// a filter on a value the question does not write, beside one it
		// does: filtered on the one it writes (groundFilter)
		{"How many parts are made in Brno?", `{"table":"parts","where":[{"column":"plant","op":"=","value":"Porto"}],"aggregate":{"fn":"count","column":"part_id"}}`, true},
		// a grouping the model wrote on a column the question names no
		// value of: left as it is (ungroupNamed takes one it does)
		{"How many parts are made in Brno?", `{"table":"parts","columns":["category"],"group_by":["category"],"aggregate":{"fn":"count","column":"part_id"}}`, false},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered || len(m.gens) != 1 {
			t.Fatalf("%s: %d generates, answer %+v", c.call, len(m.gens), ans)
		}
		if !c.added {
			if len(ans.Steps) != 2 || ans.Steps[0].By != "" {
				t.Errorf("%s: steps %+v; want the model's query answered as it is", c.call, ans.Steps)
			}
			continue
		}
		if len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge || !strings.Contains(string(ans.Steps[1].Args), `"where":[{"column":"plant","op":"=","value":"Brno"}]`) {
			t.Fatalf("%s: steps %+v; want the model's count, kgforge's filtered on plant = Brno, the answer", c.call, ans.Steps)
		}
		if _, rows, _ := ResultRows(ans.Steps[1].Result); len(rows) != 1 || rows[0][0] != "7" || ans.Text != "7" {
			t.Errorf("%s: answer %q from %q; want the 7 parts made in Brno", c.call, ans.Text, ans.Steps[1].Result)
		}
	}
}

func TestNamedWhole_AValueAtWordBoundaries(t *testing.T) {
	for _, c := range []struct {
		text, value string
		want        bool
	}{
		{"Which country is Kaiga-4 built in?", "Kaiga-4", true},
		{"Which country is Kaiga-4 built in?", "kaiga-4", true},
		{"Which country is Kaiga-41 built in?", "Kaiga-4", false},
		{"How many plants are there?", "plant", false},
		{"How many plants are in the plant list?", "plant", true},
		{"Parts made in Brno", "Brno", true},
		{"Is it an A?", "A", false}, // too short to tell
		{"Kaiga", "Kaiga-4", false},
		// a code's underscores written as spaces
		{"How many orders are in production?", "in_production", true},
		{"How many orders are in production?", "in_prod", false},
	} {
		if got := namedWhole(c.text, c.value); got != c.want {
			t.Errorf("namedWhole(%q, %q) = %v, want %v", c.text, c.value, got, c.want)
		}
	}
}

func TestAgentActionModel_NamesTheRowsAKeyIdentifies(t *testing.T) {
	for _, c := range []struct {
		question, call string
		want           string // the answer; "" when the model's query stands
	}{
		// a foreign key selected: the supplier's name through the join
		{"Which supplier makes the Aluminium frame CT3?", `{"table":"parts","columns":["supplier_id"],"where":[{"column":"name","op":"=","value":"Aluminium frame CT3"}]}`, "Kestrel Alloys"},
		// the table's own key selected: its own name column
		{"Which supplier is in Denmark?", `{"table":"suppliers","columns":["supplier_id"],"where":[{"column":"country","op":"=","value":"Denmark"}]}`, "Nordhavn Drivetrain"},
		// the question asks for the key: it stands
		{"What is the supplier id of the Aluminium frame CT3?", `{"table":"parts","columns":["supplier_id"],"where":[{"column":"name","op":"=","value":"Aluminium frame CT3"}]}`, ""},
		// a column that is no key, or an aggregate: it stands
		{"Which plant makes the Aluminium frame CT3?", `{"table":"parts","columns":["plant"],"where":[{"column":"name","op":"=","value":"Aluminium frame CT3"}]}`, ""},
		{"How many suppliers are there?", `{"table":"suppliers","aggregate":{"fn":"count","column":"supplier_id"}}`, ""},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered || len(m.gens) != 1 {
			t.Fatalf("%s: %d generates, answer %+v", c.call, len(m.gens), ans)
		}
		if c.want == "" {
			if len(ans.Steps) != 2 || ans.Steps[0].By != "" {
				t.Errorf("%q: steps %+v; want the model's query answered as it is", c.question, ans.Steps)
			}
			continue
		}
		if len(ans.Steps) != 3 || ans.Steps[1].By != StepByKgforge || ans.Text != c.want {
			t.Errorf("%q: answer %q, steps %+v; want the model's query, kgforge's naming the rows, the answer %q", c.question, ans.Text, ans.Steps, c.want)
		}
	}
}

func TestNameColumn_OneTextNameColumn(t *testing.T) {
	tbl := func(cols ...kg.Column) *kg.Table { return &kg.Table{Name: "t", Columns: cols} }
	for _, c := range []struct {
		t    *kg.Table
		want string
	}{
		{tbl(kg.Column{Name: "id", Type: "VARCHAR"}, kg.Column{Name: "Name", Type: "VARCHAR"}), "Name"},
		{tbl(kg.Column{Name: "id", Type: "BIGINT"}, kg.Column{Name: "singer_name", Type: "VARCHAR"}), "singer_name"},
		{tbl(kg.Column{Name: "name", Type: "BIGINT"}), ""},                                                       // not text
		{tbl(kg.Column{Name: "first_name", Type: "VARCHAR"}, kg.Column{Name: "last_name", Type: "VARCHAR"}), ""}, // which one?
		{tbl(kg.Column{Name: "city", Type: "VARCHAR"}), ""},
	} {
		if got := nameColumn(c.t, "id"); got != c.want {
			t.Errorf("nameColumn(%+v) = %q, want %q", c.t.Columns, got, c.want)
		}
	}
}

func TestIdentifierName(t *testing.T) {
	for col, want := range map[string]bool{
		"supplier_id": true, "ID": true, "TeacherId": true, "part_code": true, "order_no": true,
		"Hometown": false, "name": false, "rating": false, "idea": false, "amount_paid": false, "Paid": false,
	} {
		if got := identifierName(col); got != want {
			t.Errorf("identifierName(%q) = %v, want %v", col, got, want)
		}
	}
}

func TestAgentActionModel_GroundsAFilterTheQuestionDoesNotName(t *testing.T) {
	for _, c := range []struct {
		question, call string
		want           string // the answer; "" when the model's query stands
		steps          int
	}{
		// S001 is the listing's first sample, and its rows answer another
		// question: filtered on the part the question names, then named
		{"Which supplier supplies the battery pack?", `{"table":"parts","columns":["supplier_id"],"where":[{"column":"supplier_id","op":"=","value":"S001"}]}`, "Lumen Cell Systems", 4},
		// the question writes the value: it stands
		{"Which parts does Kestrel Alloys supply?", `{"table":"parts","columns":["name"],"where":[{"column":"suppliers.name","op":"=","value":"Kestrel Alloys"}]}`, "", 2},
		// the question names no value of the table: it stands
		{"Which parts are the most costly?", `{"table":"parts","columns":["name"],"where":[{"column":"category","op":"=","value":"frames"}]}`, "", 2},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered || len(m.gens) != 1 {
			t.Fatalf("%s: %d generates, answer %+v", c.call, len(m.gens), ans)
		}
		if len(ans.Steps) != c.steps {
			t.Fatalf("%q: steps %+v; want %d", c.question, ans.Steps, c.steps)
		}
		if c.want == "" {
			if ans.Steps[0].By != "" || ans.Steps[1].By != StepByKgforge || ans.Steps[1].Tool != ToolAnswer {
				t.Errorf("%q: steps %+v; want the model's query answered as it is", c.question, ans.Steps)
			}
			continue
		}
		for _, st := range ans.Steps[1:] {
			if st.By != StepByKgforge {
				t.Errorf("%q: step %+v not kgforge's", c.question, st)
			}
		}
		if !strings.Contains(string(ans.Steps[1].Args), `"48V battery pack"`) || ans.Text != c.want {
			t.Errorf("%q: answer %q, steps %+v; want the filter on the part named and the answer %q", c.question, ans.Text, ans.Steps, c.want)
		}
	}
}

func TestGroundedValue_FromTheQuestionOrAnEarlierResult(t *testing.T) {
	r := &run{ans: Answer{Question: "Which parts does Kestrel Alloys supply?", Steps: []Step{
		{Tool: ToolSelect, Result: "supplier_id\tname\nS005\tLumen Cell Systems"},
		{Tool: ToolSelect, Result: "supplier_id\nS001"}, // the query being judged
	}}}
	for v, want := range map[string]bool{"Kestrel Alloys": true, "kestrel alloys": true, "S005": true, "S001": false, "Lumen": false, "frames": false} {
		if got := r.groundedValue(v); got != want {
			t.Errorf("groundedValue(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestAgentActionModel_LooksUpTheCellsTheQuestionNames: a question that
// writes a row's label whole and names columns by their words asks for
// those cells; a plain query whose filters matched no row, or hold no
// value the question writes, is run again as that lookup, as kgforge's own
// step. A query that found rows by a value the question writes, the
// model's own lookup, an aggregate, and a question that names no column
// are left as they are.
func TestAgentActionModel_LooksUpTheCellsTheQuestionNames(t *testing.T) {
	const q = "What are the category and the plant of Aluminium frame CT3?"
	for _, c := range []struct {
		question, call string
		looked         bool
	}{
		{q, `{"table":"parts","columns":["name"],"where":[{"column":"category","op":"=","value":"Aluminium frame CT3"}]}`, true},
		{q, `{"table":"parts","columns":["part_id"],"where":[{"column":"plant","op":"=","value":"Atlantis"}]}`, true},
		// no filter, or one copied from the samples: the lookup too
		{q, `{"table":"parts","columns":["part_id"]}`, true},
		{q, `{"table":"parts","columns":["name"],"where":[{"column":"plant","op":"=","value":"Porto"}]}`, true},
		// rows found by a filter the question writes: the model's query stands
		{"What are the category and the plant of Aluminium frame CT3 in Brno?", `{"table":"parts","columns":["part_id"],"where":[{"column":"plant","op":"=","value":"Brno"}]}`, false},
		// the model's own lookup
		{q, `{"table":"parts","columns":["category","plant"],"where":[{"column":"name","op":"=","value":"Aluminium frame CT3"}]}`, false},
		// an aggregate is no lookup
		{q, `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`, false},
		// no column named
		{"What about Aluminium frame CT3?", `{"table":"parts","columns":["part_id"],"where":[{"column":"plant","op":"=","value":"Atlantis"}]}`, false},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered || len(m.gens) != 1 {
			t.Fatalf("%s: %d generates, answer %+v", c.call, len(m.gens), ans)
		}
		var looked *Step
		for k := range ans.Steps {
			if s := &ans.Steps[k]; s.By == StepByKgforge && s.Tool == ToolSelect && strings.Contains(string(s.Args), `"columns":["category","plant"]`) {
				looked = s
			}
		}
		if looked == nil {
			if c.looked {
				var ran []string
				for _, s := range ans.Steps {
					ran = append(ran, s.By+" "+s.Tool+" "+string(s.Args))
				}
				t.Errorf("%s: steps %q; want kgforge's lookup of category and plant", c.call, ran)
			}
			continue
		}
		if !c.looked {
			t.Errorf("%s: looked up %s, want the model's query left alone", c.call, looked.Args)
			continue
		}
		if !strings.Contains(string(looked.Args), `"where":[{"column":"name","op":"=","value":"Aluminium frame CT3"}]`) {
			t.Errorf("%s: lookup %s, want filtered on name", c.call, looked.Args)
		}
		if _, rows, _ := ResultRows(looked.Result); len(rows) != 1 || !strings.Contains(ans.Text, "frames") || !strings.Contains(ans.Text, "Brno") {
			t.Errorf("%s: answer %q from %q", c.call, ans.Text, looked.Result)
		}
	}
}

func TestAgentActionModel_DropsFiltersNothingGrounds(t *testing.T) {
	const q = "What are the category and the plant of every part?"
	for _, c := range []struct {
		question, call string
		dropped        bool
	}{
		// values copied from the listing's samples, for a question that names none
		{q, `{"table":"parts","columns":["category","plant"],"where":[{"column":"plant","op":"=","value":"Porto"}]}`, true},
		{q, `{"table":"parts","columns":["category","plant"],"where":[{"column":"category","op":"=","value":"frames"},{"column":"plant","op":"=","value":"Brno"}]}`, true},
		// the question names a value: a name, a number, a quotation
		{"What are the category and the plant of parts made in Porto?", `{"table":"parts","columns":["category","plant"],"where":[{"column":"plant","op":"=","value":"Porto"}]}`, false},
		{"What are the category and the plant of parts that cost more than 100?", `{"table":"parts","columns":["category","plant"],"where":[{"column":"plant","op":"=","value":"Porto"}]}`, false},
		{`What are the category and the plant of parts of the "frames" category?`, `{"table":"parts","columns":["category","plant"],"where":[{"column":"plant","op":"=","value":"Porto"}]}`, false},
		// a filter the question writes stands
		{"What are the category and the plant of the frames?", `{"table":"parts","columns":["category","plant"],"where":[{"column":"category","op":"=","value":"frames"}]}`, false},
		// no filter
		{q, `{"table":"parts","columns":["category","plant"]}`, false},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, c.question)
		if !ans.Answered {
			t.Fatalf("%s: answer %+v", c.call, ans)
		}
		var dropped *Step
		for k := range ans.Steps {
			if s := &ans.Steps[k]; s.By == StepByKgforge && s.Tool == ToolSelect && !strings.Contains(string(s.Args), `"where"`) {
				dropped = s
			}
		}
		switch {
		case c.dropped && dropped == nil:
			t.Errorf("%q %s: no query without the filters; steps %+v", c.question, c.call, ans.Steps)
		case !c.dropped && dropped != nil:
			t.Errorf("%q %s: ran %s, want the model's query left alone", c.question, c.call, dropped.Args)
		case c.dropped:
			if _, rows, _ := ResultRows(dropped.Result); len(rows) != 15 {
				t.Errorf("%s: %d rows, want the 15 parts", c.call, len(rows))
			}
		}
	}
}

func TestNamesAValue(t *testing.T) {
	for q, want := range map[string]bool{
		"What are the age and hometown of teachers?":                   false,
		"What is each teacher's hometown?":                             false,
		"Which teachers are older than 30?":                            true,
		"What is the name of the museum named Plaza Museum?":           true,
		"List the teachers whose hometown is not `` Little Lever '' .": true,
		"Which visitors bought tickets for 'the gallery'?":             true,
		"what are the names of teachers":                               false,
	} {
		if got := namesAValue(q); got != want {
			t.Errorf("namesAValue(%q) = %v, want %v", q, got, want)
		}
	}
}

// A sum over no row is SQL's NULL; the answer says that no row matched.
func TestAgentActionModel_AnAggregateOfNoRowsIsNoRowsMatch(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{`{"table":"parts","aggregate":{"fn":"sum","column":"unit_cost_eur"},"where":[{"column":"part_id","op":"=","value":"P999"}]}`, "No rows match."},
		{`{"table":"parts","aggregate":{"fn":"avg","column":"unit_cost_eur"},"where":[{"column":"part_id","op":"=","value":"P999"}]}`, "No rows match."},
		// a count of none is an answer
		{`{"table":"parts","aggregate":{"fn":"count","column":"part_id"},"where":[{"column":"part_id","op":"=","value":"P999"}]}`, "0"},
	} {
		m := script(actionModel, `{"tool":"select","args":`+c.call+`}`)
		ans := askExample(t, m, "What do parts P999 cost?")
		if !ans.Answered || ans.Text != c.want {
			t.Errorf("%s: answer %q, want %q (steps %+v)", c.call, ans.Text, c.want, ans.Steps)
		}
	}
}
