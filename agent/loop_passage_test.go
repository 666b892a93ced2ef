package agent

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kgforge/kg"
)

// A question the documents answer and the tables do not name is answered
// with the sentence that names it, cited by its bytes in the source,
// without asking the action model; a question the tables name goes to the
// model as before.
func TestAgentActionModel_AnswersFromTheSentenceThatNamesTheQuestion(t *testing.T) {
	const sentence = "The fatigue test takes a sample of 10 frames from each batch."
	m := script(actionModel) // no reply: the model must not be asked
	ans := askExample(t, m, "How many frames does the fatigue test sample from each batch?")
	if !ans.Answered || ans.Text != sentence || ans.Tokens.Turns != 0 {
		t.Fatalf("answer %q (answered %v, %d turns), want the sentence without a turn", ans.Text, ans.Answered, ans.Tokens.Turns)
	}
	if len(ans.Citations) != 1 || ans.Citations[0].Kind != "chunk" || ans.Citations[0].Span == nil {
		t.Fatalf("citations %+v, want the sentence's chunk with a span", ans.Citations)
	}
	c := ans.Citations[0]
	src, err := os.ReadFile(filepath.Join(exampleRoot, c.Source))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(src[c.Span.Start:c.Span.End]); got != sentence {
		t.Errorf("the cited span %d-%d of %s holds %q, want the sentence", c.Span.Start, c.Span.End, c.Source, got)
	}
	if ans.Confidence <= 0 || ans.Confidence > 1 {
		t.Errorf("confidence %v, want the share of the question's words the sentence names", ans.Confidence)
	}
	if len(ans.Steps) != 1 || ans.Steps[0].By != StepByKgforge || ans.Steps[0].Tool != ToolAnswer {
		t.Errorf("steps %+v, want kgforge's answer alone", ans.Steps)
	}

	// A code the question writes is in the sentence's chunk, under the
	// heading that names the report; the sentence says "this incident report".
	m = script(actionModel)
	ans = askExample(t, m, "Who opened the incident report QI-2025-04?")
	if !ans.Answered || !strings.HasPrefix(ans.Text, "Ana Ferreira opened this incident report") || ans.Tokens.Turns != 0 {
		t.Errorf("answer %q (answered %v, %d turns), want the sentence that names who opened it", ans.Text, ans.Answered, ans.Tokens.Turns)
	}
	// a code no chunk of that sentence writes: the model is asked
	m = script(actionModel, `{"tool":"select","args":{"table":"orders","columns":["customer"],"where":[{"column":"order_id","op":"=","value":"O-1002"}]}}`)
	ans = askExample(t, m, "Who opened the incident report QI-2031-07?")
	if ans.Tokens.Turns != 1 {
		t.Errorf("answer %q after %d turns, want the model asked", ans.Text, ans.Tokens.Turns)
	}

	// a sentence's "lowered" names the question's "lower" (stem): without
	// it "Elena Varga reviews every supplier rating each quarter." names as
	// many of the question's words and is shorter
	for q, want := range map[string]string{
		"Whose rating did Elena Varga lower?": "Elena Varga lowered the rating of Kestrel Alloys from 4.4 to 3.2.",
	} {
		ans = askExample(t, script(actionModel), q)
		if ans.Text != want || ans.Tokens.Turns != 0 {
			t.Errorf("%q: answer %q after %d turns, want %q without a turn", q, ans.Text, ans.Tokens.Turns, want)
		}
	}

	// A place no table holds: the sentence that names the thing and a
	// place after "in". A place a column holds (country) is a query's.
	for q, want := range map[string]string{
		"In which city is Kestrel Alloys?":    "Kestrel Alloys is based in Sheffield, United Kingdom.",
		"In which country is Kestrel Alloys?": "",
	} {
		m = script(actionModel, `{"tool":"select","args":{"table":"suppliers","columns":["country"],"where":[{"column":"name","op":"=","value":"Kestrel Alloys"}]}}`)
		ans = askExample(t, m, q)
		if want != "" && (ans.Text != want || ans.Tokens.Turns != 0) || want == "" && ans.Tokens.Turns != 1 {
			t.Errorf("%q: answer %q after %d turns, want %q", q, ans.Text, ans.Tokens.Turns, want)
		}
	}

	// "Brno" is in a sentence, but the tables name the parts and the plant.
	m = script(actionModel, `{"tool":"select","args":{"table":"parts","columns":["name"],"where":[{"column":"plant","op":"=","value":"Brno"}]}}`)
	ans = askExample(t, m, "Which parts are made in Brno?")
	if ans.Tokens.Turns != 1 || len(ans.Steps) == 0 || ans.Steps[0].Tool != ToolSelect {
		t.Fatalf("steps %+v after %d turns, want the model's query", ans.Steps, ans.Tokens.Turns)
	}

	// The operating rules' sentence names a supplier, a rating and "below",
	// but 3.0, not the question's 3.5: the model is asked.
	m = script(actionModel, `{"tool":"select","args":{"table":"suppliers","columns":["name"],"where":[{"column":"rating","op":"<","value":"3.5"}]}}`)
	ans = askExample(t, m, "Which suppliers have a rating below 3.5?")
	if ans.Tokens.Turns != 1 || len(ans.Steps) == 0 || ans.Steps[0].Tool != ToolSelect {
		t.Fatalf("answer %q, steps %+v after %d turns, want the model's query", ans.Text, ans.Steps, ans.Tokens.Turns)
	}
}

// With NoPassages (bench/agenttraj, which records the model's queries)
// the action model is asked as before.
func TestAgentActionModel_NoPassagesAsksTheModel(t *testing.T) {
	m := script(actionModel, `{"tool":"select","args":{"table":"parts","columns":["name"]}}`)
	ans := askExampleWith(t, m, Options{Model: "m", NoPassages: true}, "How many frames does the fatigue test sample from each batch?")
	if ans.Tokens.Turns != 1 || len(ans.Steps) == 0 || ans.Steps[0].Tool != ToolSelect {
		t.Fatalf("steps %+v after %d turns, want the model's query", ans.Steps, ans.Tokens.Turns)
	}
}

// A model other than the action model drives its own tools: no passage
// answer comes before its first turn.
func TestAgent_PassageAnswerOnlyForTheActionModel(t *testing.T) {
	m := script(chatModel, `{"tool":"answer","args":{"answer":"ten","confidence":0.5}}`)
	ans := askExampleWith(t, m, Options{Model: "m", Format: FormatJSON}, "How many frames does the fatigue test sample from each batch?")
	if ans.Text != "ten" || ans.Tokens.Turns != 1 {
		t.Fatalf("answer %q after %d turns, want the model's own", ans.Text, ans.Tokens.Turns)
	}
}

func TestSentenceSpans(t *testing.T) {
	text := "# Rules\n\nEvery frame batch must pass a test. Ask Dr. Sousa first!  Short.\n| a | b |\nThe last line has no stop\n" +
		"Kestrel Alloys Ltd. supplies frames to the U.S. plant. Cloudmark, Inc. (Cloudmark), a leader in security. J. Smith signed it. It ends here."
	var got []string
	for _, s := range sentenceSpans(text) {
		got = append(got, text[s.Start:s.End])
	}
	want := []string{
		"Every frame batch must pass a test.", "Ask Dr. Sousa first!", "The last line has no stop",
		"Kestrel Alloys Ltd. supplies frames to the U.S. plant.", "Cloudmark, Inc. (Cloudmark), a leader in security.",
		"J. Smith signed it.", "It ends here.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sentenceSpans = %q, want %q", got, want)
	}
	if spans := sentenceSpans(strings.Repeat("word ", 200)); len(spans) != 0 {
		t.Errorf("a 1,000-byte line gave %d sentences, want none (too long to answer)", len(spans))
	}
}

func TestNamedTableWords(t *testing.T) {
	tables := []kg.Table{{Name: "purchase_orders", Columns: []kg.Column{{Name: "supplierId", Samples: []string{"Kestrel Alloys", "City 300"}}, {Name: "qty"}}}}
	linked := map[string][]string{linkKey("purchase_orders", "supplierId"): {"Tagus Composites"}}
	q := "How many purchase orders in the city went to Tagus Composites or to the supplier on probation?"
	got := namedTableWords(tables, q, questionWords(q), linked)
	// "city": only "City 300" holds it, a value the question does not name
	want := []string{"purchase", "order", "tagu", "composite", "supplier"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("namedTableWords = %q, want %q", got, want)
	}
	// two values of a column hold "area": a kind of value it holds
	crimes := []kg.Table{{Name: "crimes", Columns: []kg.Column{{Name: "Location", Samples: []string{"On or near Parking Area", "On or near Sports Area"}}}}}
	q = "Which area do most of the crimes happen?"
	if got := namedTableWords(crimes, q, questionWords(q), nil); !reflect.DeepEqual(got, []string{"area", "crime"}) {
		t.Errorf("namedTableWords = %q, want area and crime", got)
	}
}

// A question that names a row only through a sentence ("the part used
// only in the Volt E8", and a sentence says which part) gets the
// cells it names from that row.
func TestAgentActionModel_LooksUpTheRowASentenceNames(t *testing.T) {
	for _, c := range []struct {
		question, call, want string
	}{
		{
			"What is the unit cost in EUR of the part used only in the Volt E8?",
			`{"table":"parts","columns":["unit_cost_eur"],"where":[{"column":"name","op":"=","value":"Volt E8"}]}`, "310",
		},
		// the column named without its unit
		{
			"What is the unit cost of the part used only in the Volt E8?",
			`{"table":"parts","columns":["unit_cost_eur"],"where":[{"column":"name","op":"=","value":"Volt E8"}]}`, "310",
		},
		// the question names the part itself: the model's query stands
		{
			"What is the unit cost in EUR of the 48V battery pack?",
			`{"table":"parts","columns":["unit_cost_eur"],"where":[{"column":"name","op":"=","value":"48V battery pack"}]}`, "",
		},
		// the sentence names what the question asks for and nothing
		// that links it to one row (a plant of many parts)
		{
			"What is the unit cost in EUR of the most expensive part at the plant?",
			`{"table":"parts","columns":["unit_cost_eur"],"where":[{"column":"plant","op":"=","value":"Lisbon"}]}`, "",
		},
	} {
		ans := askExample(t, script(actionModel, `{"tool":"select","args":`+c.call+`}`), c.question)
		looked := lastKgforgeSelect(ans)
		switch {
		case c.want == "" && looked != nil:
			t.Errorf("%q: kgforge ran %s, want the model's query alone", c.question, looked.Args)
		case c.want != "" && looked == nil:
			t.Errorf("%q: no lookup; steps %+v", c.question, ans.Steps)
		case c.want != "" && !strings.HasPrefix(ans.Text, c.want):
			t.Errorf("%q: answer %q, want %s (looked up with %s)", c.question, ans.Text, c.want, looked.Args)
		}
	}
}

// A typed query that fails (a column the model invented) for a question
// that writes a row's value and names a column gets those cells looked up
// by kgforge instead of the error going back to the model.
func TestAgentActionModel_LooksUpTheNamedCellsWhenTheQueryFails(t *testing.T) {
	bad := `{"tool":"select","args":{"table":"parts","columns":["price"],"where":[{"column":"name","op":"=","value":"Sport saddle"}]}}`
	m := script(actionModel, bad)
	ans := askExample(t, m, "What is the unit cost in EUR of the Sport saddle?")
	if !ans.Answered || !strings.HasPrefix(ans.Text, "18.5") || len(m.gens) != 1 {
		t.Fatalf("answer %q after %d model calls, want the saddle's cost after one; steps %+v", ans.Text, len(m.gens), ans.Steps)
	}
	if len(ans.Steps) < 2 || ans.Steps[0].ErrorKind == "" || ans.Steps[1].By != StepByKgforge || ans.Steps[1].Tool != ToolSelect {
		t.Errorf("steps %+v, want the failed query, then kgforge's lookup", ans.Steps)
	}

	// The question names no row: the error goes back to the model.
	m = script(actionModel, bad, `{"tool":"select","args":{"table":"parts","columns":["name"]}}`)
	ans = askExample(t, m, "What are the prices of the parts?")
	if len(m.gens) != 2 {
		t.Errorf("%d model calls, want the error handed back for a second; steps %+v", len(m.gens), ans.Steps)
	}
}

// lastKgforgeSelect is the last typed query kgforge ran itself (a
// repair's), with its result; nil when none.
func lastKgforgeSelect(ans Answer) *Step {
	var last *Step
	for k := range ans.Steps {
		if s := &ans.Steps[k]; s.By == StepByKgforge && s.Tool == ToolSelect {
			last = s
		}
	}
	return last
}

// The passage search reads the question as terms only: quotes, SQL and
// LIKE wildcards in it are words or nothing, never statements.
func TestAgentActionModel_PassageSearchTakesAHostileQuestionAsWords(t *testing.T) {
	tb := exampleTools(t)
	for _, q := range []string{
		`What's the fatigue test's sample'); DROP TABLE chunks; --`,
		`fatigue % _ \ test " sample`,
		"",
		"?!",
	} {
		best, err := tb.passage(context.Background(), q)
		if err != nil {
			t.Fatalf("passage(%q): %v", q, err)
		}
		if strings.Contains(q, "fatigue") && !strings.Contains(best.text, "fatigue test") {
			t.Errorf("passage(%q) = %q, want the sentence on the fatigue test", q, best.text)
		}
	}
	// The bundle still answers: nothing was dropped.
	if best, err := tb.passage(context.Background(), "How many frames does the fatigue test sample?"); err != nil || !best.found() {
		t.Fatalf("after the hostile questions: %q, %v", best.text, err)
	}
}

// FuzzSentenceSpans: over any document text, the sentences are in order,
// apart, within the text, trimmed, within their bounds in length, and
// never a heading or a table row.
func FuzzSentenceSpans(f *testing.F) {
	for _, s := range []string{
		"Kestrel Alloys Ltd. supplies the Aluminium frame TR5. It is based in Sheffield.",
		"# Heading\n| a | b |\nA line without a stop\n\n  Indented line here. ",
		"U.S. e.g. i.e. J. K. Inc. ... !!! ??? . . .",
		"\xff\xfe broken bytes. And more text after it.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, s := range sentenceSpans(text) {
			if s.Start < prev || s.End <= s.Start || s.End > len(text) {
				t.Fatalf("span %d-%d out of order or bounds (previous end %d, text %d bytes)", s.Start, s.End, prev, len(text))
			}
			piece := text[s.Start:s.End]
			if n := len(piece); n < minPassage || n > maxPassage {
				t.Fatalf("sentence of %d bytes: %q", n, piece)
			}
			if isSpace(piece[0]) || isSpace(piece[len(piece)-1]) {
				t.Fatalf("sentence not trimmed: %q", piece)
			}
			if piece[0] == '#' || piece[0] == '|' {
				t.Fatalf("a heading or table row: %q", piece)
			}
			prev = s.End
		}
	})
}

func TestNumbersIn(t *testing.T) {
	for text, want := range map[string][]string{
		"A purchase order above 25,000 EUR needs approval.": {"25000"},
		"a rating below 3.0 in 2025":                        {"3", "2025"},
		"revenue of $1,212.50 (12.5%)":                      {"1212.5", "12.5"},
		"no number here":                                    nil,
		"The ten largest customers represented 49%":         {"49", "10"},
	} {
		if got := numbersIn(text); !slices.Equal(got, want) {
			t.Errorf("numbersIn(%q) = %q, want %q", text, got, want)
		}
	}
	if got := questionNumbers("What share of the 10 largest customers in 2019 is above 2,500?"); !slices.Equal(got, []string{"10", "2500"}) {
		t.Errorf("questionNumbers = %q, want 10 and 2500 without the year", got)
	}
	if got := questionNumbers("Who opened report QI-2025-04 for the 3 batches?"); !slices.Equal(got, []string{"3"}) {
		t.Errorf("questionNumbers = %q, want 3 without the code's digits", got)
	}
	if got := questionCodes("Who opened report QI-2025-04 (part P012)?"); !slices.Equal(got, []string{"QI-2025-04", "P012"}) {
		t.Errorf("questionCodes = %q, want QI-2025-04 and P012", got)
	}
}

// A word the tables hold only inside a value the question does not name
// ("city" of the product "City 300") does not take the question from the
// sentence that answers it.
func TestAgentActionModel_AValueTheQuestionDoesNotNameLeavesItToTheSentence(t *testing.T) {
	ans := askExample(t, script(actionModel), "In which city is Serra Brakes based?")
	if ans.Text != "Serra Brakes is based in Bilbao, Spain." || ans.Tokens.Turns != 0 {
		t.Errorf("answer %q after %d turns, want the sentence without a turn", ans.Text, ans.Tokens.Turns)
	}
}

// A question that names the rows it counts only through a sentence ("the
// supplier on probation", and a sentence says which) gets the count of
// those rows.
func TestAgentActionModel_FiltersOnTheValueASentenceNames(t *testing.T) {
	countParts := `{"table":"parts","aggregate":{"fn":"count","column":"part_id"}}`
	for _, c := range []struct{ question, call, want string }{
		// "Velora Cycles placed Kestrel Alloys on supplier probation …": 3 parts
		{"How many parts does the supplier on probation supply?", countParts, "3"},
		// "The affected product is the Trail 500.": 13 orders, the model's
		// listing counted
		{"How many orders were placed for the product affected by the cracked frames?", `{"table":"orders","columns":["order_date"],"where":[{"column":"product","op":"=","value":"Cracked frames"}]}`, "13"},
		// the sentence that names the part writes no number: the model is
		// asked, and its sum on a year copied from the incident's id is
		// filtered on the part instead (142 EUR)
		{"What is the unit cost of the part affected by incident QI-2025-04?", `{"table":"parts","where":[{"column":"unit_cost_eur","op":"=","value":"2025"}],"aggregate":{"fn":"sum","column":"unit_cost_eur"}}`, "142"},
		// no sentence names a row: the count stands
		{"How many parts are there?", countParts, "15"},
		// the part's own rows counted where the question counts orders of
		// the bicycle a sentence ties to the part ("The Volt E8 uses the
		// 48V battery pack."): the Volt E8's 11 orders (bridgeFilter)
		{"How many orders were placed for the bicycle that uses the 48V battery pack?", `{"table":"parts","where":[{"column":"name","op":"=","value":"48V battery pack"}],"aggregate":{"fn":"count","column":"part_id"}}`, "11"},
		// the same after the part's name moved off part_id (moveFilter)
		{"How many orders were placed for the bicycle that uses the 48V battery pack?", `{"table":"parts","where":[{"column":"part_id","op":"=","value":"48V battery pack"}],"aggregate":{"fn":"count","column":"part_id"}}`, "11"},
		// the question counts the part's own table: the count stands
		{"How many parts are named 48V battery pack?", `{"table":"parts","where":[{"column":"name","op":"=","value":"48V battery pack"}],"aggregate":{"fn":"count","column":"part_id"}}`, "1"},
	} {
		ans := askExample(t, script(actionModel, `{"tool":"select","args":`+c.call+`}`), c.question)
		if ans.Text != c.want {
			t.Errorf("%q: answer %q, want %q; steps %+v", c.question, ans.Text, c.want, ans.Steps)
		}
	}
}

func TestNamesOneRow(t *testing.T) {
	for _, c := range []struct {
		q, table, column string
		want             bool
	}{
		{"How many parts does the supplier on probation supply?", "parts", "suppliers.name", true},
		{"How many orders were placed for the product affected by the cracked frames?", "orders", "product", true},
		{"What are the minimum and maximum ratings of the suppliers?", "parts", "suppliers.name", false},
		{"What is the highest rating of a supplier?", "parts", "suppliers.name", false},
		{"What is the name of the part?", "parts", "name", true},
		{"What is the name of every part?", "parts", "name", false},
	} {
		if got := namesOneRow(c.q, c.table, c.column); got != c.want {
			t.Errorf("namesOneRow(%q, %s, %s) = %v, want %v", c.q, c.table, c.column, got, c.want)
		}
	}
}

func TestAsksANumber(t *testing.T) {
	tables := []kg.Table{{Name: "parts", Columns: []kg.Column{{Name: "name", Type: "VARCHAR"}, {Name: "unit_cost_eur", Type: "DOUBLE"}}}}
	for q, want := range map[string]bool{
		"What is the unit cost of the part affected by incident QI-2025-04?": true,
		"How many frames does the fatigue test sample?":                      true,
		"How much did the frames cost?":                                      true,
		"What is the name of the part affected by the incident?":             false,
		"Where is Serra Brakes based?":                                       false,
	} {
		if got := asksANumber(q, tables); got != want {
			t.Errorf("asksANumber(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestWordNumbers(t *testing.T) {
	got := wordNumbers(`Batch KA-2503-17 contained 240 TR5 frames, "1,200" in all; three cracked (3.0 %) for $72.3 million and €39,000.`)
	if want := []string{"240", "1200", "3", "72.3", "39000"}; !reflect.DeepEqual(got, want) {
		t.Errorf("wordNumbers = %q, want %q", got, want)
	}
}

// "Which supplier …?" is not answered by a sentence that names no
// supplier; "In which city …?" asks for nothing the tables hold.
func TestNamesWhatIsAsked(t *testing.T) {
	a, err := New(context.Background(), script(actionModel), exampleBundle(t), Options{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	data, err := a.tools.b.Tables()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		question, sentence string
		want               bool
	}{
		{"Which supplier makes the frame of the Volt E8?", "The Volt E8 uses the Aluminium frame VE8.", false},
		{"Which supplier makes the frame of the Volt E8?", "Kestrel Alloys supplies the Aluminium frame VE8 to the Brno plant.", true},
		// the supplier the question names is no answer
		{"Which supplier does Kestrel Alloys work with?", "Kestrel Alloys supplies the Aluminium frame VE8 to the Brno plant.", false},
		{"In which city is Serra Brakes based?", "Serra Brakes is based in Bilbao, Spain.", true},
	} {
		r := &run{a: a, ans: Answer{Question: c.question}}
		got, err := r.namesWhatIsAsked(context.Background(), data, c.sentence)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("namesWhatIsAsked(%q, %q) = %v, want %v", c.question, c.sentence, got, c.want)
		}
	}
}

// A question that names a row by what a sentence says it is ("the most
// used part at the Porto plant") is filtered on the row the sentence
// names, not on the description's words.
func TestAgentActionModel_FiltersOnTheRowASentenceDescribes(t *testing.T) {
	for _, c := range []struct {
		question, call string
		want           string // the value kgforge's last query filters on; "" when the model's query stands
		answer         string
	}{
		// "The Aluminium frame TR5 is the most used frame at the Porto plant."
		{"Which supplier makes the most used part at the Porto plant?", `{"table":"parts","columns":["suppliers.name"],"where":[{"column":"plant","op":"=","value":"Porto"}]}`, "Aluminium frame TR5", "Kestrel Alloys"},
		// the filter on the description's word added by kgforge first (addFilter)
		{"Which supplier makes the most used part at the Porto plant?", `{"table":"parts","columns":["suppliers.name"]}`, "Aluminium frame TR5", "Kestrel Alloys"},
		// no row described as "the …": the model's query stands
		{"Which suppliers supply parts to the Brno plant?", `{"table":"parts","columns":["suppliers.name"],"where":[{"column":"plant","op":"=","value":"Brno"}]}`, "", ""},
	} {
		ans := askExample(t, script(actionModel, `{"tool":"select","args":`+c.call+`}`), c.question)
		step := lastKgforgeSelect(ans)
		switch {
		case c.want == "" && step != nil:
			t.Errorf("%q: kgforge ran %s, want the model's query alone", c.question, step.Args)
		case c.want != "" && (step == nil || !strings.Contains(string(step.Args), `"value":"`+c.want+`"`)):
			t.Errorf("%q: kgforge's last query %+v, want one filtered on %s", c.question, step, c.want)
		case c.answer != "" && ans.Text != c.answer:
			t.Errorf("%q: answer %q, want %q", c.question, ans.Text, c.answer)
		}
	}
}

// A sentence that ranks under a condition the question does not set ("…
// the most expensive part at the Brno plant") does not answer the
// question's order over every row; one without such a condition does.
func TestAgentActionModel_AnOrderUnderAnotherConditionIsNoAnswer(t *testing.T) {
	m := script(actionModel, `{"tool":"select","args":{"table":"parts","columns":["name"],"order_by":{"column":"unit_cost_eur","desc":true},"limit":1}}`)
	ans := askExample(t, m, "What is the most expensive part?")
	if ans.Tokens.Turns != 1 || ans.Text != "Carbon frame GV7" {
		t.Errorf("answer %q after %d turns, want the model's query: Carbon frame GV7", ans.Text, ans.Tokens.Turns)
	}
	ans = askExample(t, script(actionModel), "What is the most used frame at the Porto plant?")
	if ans.Tokens.Turns != 0 || ans.Text != "The Aluminium frame TR5 is the most used frame at the Porto plant." {
		t.Errorf("answer %q after %d turns, want the sentence without a turn", ans.Text, ans.Tokens.Turns)
	}
}

func TestPlaceSentence(t *testing.T) {
	sentences := []passage{
		{text: "Cicla Distribution buys all four Velora models."},
		{text: "Cicla Distribution resells bicycles to dealers in Italy."},
		{text: "Cicla Distribution is a bicycle distributor in Milan, Italy."},
	}
	q := "In which city is Cicla Distribution based?"
	values := []string{"Cicla Distribution"}
	if got, ok := placeSentence(sentences, values, q, true); !ok || got.text != sentences[2].text {
		t.Errorf("a city: %q, %v; want the sentence that writes Milan, Italy", got.text, ok)
	}
	if got, ok := placeSentence(sentences, values, "In which country is Cicla Distribution?", false); !ok || got.text != sentences[1].text {
		t.Errorf("a country: %q, %v; want the first sentence with a place", got.text, ok)
	}
	// a place the question writes is no answer; a sentence without the value neither
	if _, ok := placeSentence(sentences[1:2], values, "Which city in Italy is Cicla Distribution in?", true); ok {
		t.Error("took Italy, which the question writes")
	}
	if _, ok := placeSentence(sentences, []string{"Pedal & Co"}, q, true); ok {
		t.Error("took a sentence that does not name Pedal & Co")
	}
}
