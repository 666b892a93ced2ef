package eval

import (
	"strings"
	"testing"
)

// q builds a prepared question for the scoring tests.
func q(t *testing.T, kind Kind, question string, answer any, opts ...func(*Question)) *Question {
	t.Helper()
	x := &Question{ID: "t", Question: question, Kind: kind, Answer: answer}
	for _, o := range opts {
		o(x)
	}
	if err := x.Prepare(); err != nil {
		t.Fatal(err)
	}
	return x
}

type scoreCase struct {
	name   string
	answer string
	want   bool
}

func runScoreCases(t *testing.T, x *Question, cases []scoreCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Score(x, c.answer)
			if v.Correct != c.want {
				t.Errorf("Score(%q) = %+v, want correct=%v", c.answer, v, c.want)
			}
		})
	}
}

func TestScore_NumberRoundingAndIDs(t *testing.T) {
	x := q(t, KindNumber, "What is the mean unit cost of the frames in 2025?", 203.875)
	runScoreCases(t, x, []scoreCase{
		{"exact", "203.875", true},
		{"rounded to two places", "The mean is 203.88 EUR.", true},
		{"rounded to an integer", "about 204", true},
		{"rounded the wrong way", "203.87", false},
		{"a year from the question is not the answer", "In 2025 the mean was 203.9", true},
		{"only the question's number", "2025", false},
		{"off by more than the rounding", "205", false},
		{"no number", "the frames", false},
		{"a guess of many numbers", "100, 150, 203.875, 250", false},
	})

	small := q(t, KindNumber, "How many units were scrapped?", 0.0123)
	runScoreCases(t, small, []scoreCase{
		{"zero is not 0.0123 rounded", "0", false},
		{"three significant places", "0.0123", true},
	})

	count := q(t, KindNumber, "How many suppliers are in the UK?", 1)
	runScoreCases(t, count, []scoreCase{
		{"an id is not a number", "S001", false},
		{"a batch id is not a number", "KA-2503-17", false},
		{"a date is not a number", "2025-03-01", false},
		{"a word and a number", "1 supplier (S001)", true},
	})

	big := q(t, KindNumber, "How many bicycles can the plant assemble per year?", 30000)
	runScoreCases(t, big, []scoreCase{
		{"thousands separator", "30,000 bicycles per year.", true},
		{"scale word", "30 thousand", true},
		{"list of small numbers is not one", "30,000,1", false},
	})
}

func TestScore_NumberToleranceAndScale(t *testing.T) {
	tol := q(t, KindNumber, "What is the revenue?", 100.0, func(x *Question) { x.Tolerance = 2 })
	runScoreCases(t, tol, []scoreCase{
		{"inside", "101.9", true},
		{"outside", "102.5", false},
		{"negative is not positive", "-100", false},
	})
	scaled := q(t, KindNumber, "What was the revenue (in millions)?", 1234.5, func(x *Question) { x.Scale = "million" })
	runScoreCases(t, scaled, []scoreCase{
		{"in the scale", "1,234.5", true},
		{"in units", "$1,234,500,000", true},
		{"with the scale word", "1.2345 billion", true},
		{"a thousandth off", "1.234 billion", false},
	})
	neg := q(t, KindNumber, "What was the change?", -5.0)
	runScoreCases(t, neg, []scoreCase{
		{"minus sign", "The change was -5.", true},
		{"hyphen in a range is not a sign", "between 3-5", false},
	})
}

func TestScore_NumberWords(t *testing.T) {
	count := q(t, KindNumber, "How many suppliers does the company buy from?", 8.0)
	runScoreCases(t, count, []scoreCase{
		{"a sentence with the count in words", "The company buys all its parts from eight suppliers.", true},
		{"another count in words", "It buys from seven suppliers.", false},
		{"digits come first", "Eight of the 12 suppliers", false},
		{"a compound is not read", "forty-eight suppliers", false},
		{"no number at all", "many suppliers", false},
	})
}

func TestScore_PercentWhateverTheScale(t *testing.T) {
	frac := q(t, KindPercent, "What share of orders were delayed?", 0.125)
	runScoreCases(t, frac, []scoreCase{
		{"as a fraction", "0.125", true},
		{"as a percentage", "12.5%", true},
		{"as a rounded percentage", "about 13 %", true},
		{"rounded too far", "10%", false},
		{"wrong", "25%", false},
	})
	pct := q(t, KindPercent, "What is the dealer discount?", 30)
	runScoreCases(t, pct, []scoreCase{
		{"percent", "30 percent", true},
		{"fraction", "0.3", true},
		{"fraction 0.03 is 3 percent", "0.03", false},
	})
}

func TestScore_Bool(t *testing.T) {
	yes := q(t, KindBool, "Is Kestrel Alloys on probation?", true)
	runScoreCases(t, yes, []scoreCase{
		{"yes", "Yes.", true},
		{"true", "true", true},
		{"yes then not", "Yes, and it may not receive large orders.", true},
		{"no", "No", false},
		{"not", "It is not on probation.", false},
		{"neither", "Kestrel Alloys", false},
	})
	no := q(t, KindBool, "Does Velora make its own frames?", "no")
	runScoreCases(t, no, []scoreCase{
		{"does not", "Velora does not make its frames", true},
		{"false", "False", true},
		{"a yes word inside another is not yes", "Yesterday it did", false},
	})
}

func TestScore_TextNormalised(t *testing.T) {
	x := q(t, KindText, "Who is the CEO?", "Marta Sousa", func(x *Question) { x.Aliases = []string{"Sousa"} })
	runScoreCases(t, x, []scoreCase{
		{"exact", "Marta Sousa", true},
		{"case and punctuation", "the CEO is MARTA SOUSA.", true},
		{"alias", "Ms. Sousa", true},
		{"part of a longer word is not it", "Sousaphone", false},
		{"other", "Ana Ferreira", false},
		{"with what the result shows beside it", "Marta Sousa, CEO, 2019, Porto", true},
		{"among every row of a table: a guess", "Ana Ferreira, 1; Marta Sousa, 1; Rui Costa, 1; Petra Novak, 1; Jan Horak, 1; Eva Dvorak, 1", false},
		{"numbers do not count as items", "Marta Sousa, 1, 2, 3, 4, 5, 6", true},
	})
	accent := q(t, KindText, "Which plant?", "Dvořáková")
	runScoreCases(t, accent, []scoreCase{
		{"accents folded", "Petra Dvorakova", true},
	})
}

func TestScore_ListAsSet(t *testing.T) {
	x := q(t, KindList, "Which suppliers supply frames?", []any{"Kestrel Alloys", "Tagus Composites"})
	runScoreCases(t, x, []scoreCase{
		{"comma", "Kestrel Alloys, Tagus Composites", true},
		{"and, other order, case", "tagus composites and KESTREL ALLOYS", true},
		{"framing sentence", "The suppliers that supply frames are Kestrel Alloys and Tagus Composites.", true},
		{"json", `["Tagus Composites", "Kestrel Alloys"]`, true},
		{"bullets", "- Kestrel Alloys\n- Tagus Composites", true},
		{"duplicate", "Kestrel Alloys, Kestrel Alloys, Tagus Composites", true},
		{"missing one", "Kestrel Alloys", false},
		{"one extra", "Kestrel Alloys, Tagus Composites, Serra Brakes", false},
		{"extra after and", "Kestrel Alloys, Tagus Composites and Atlas Saddles", false},
		{"empty", "", false},
	})
	amp := q(t, KindList, "Which customers are dealers?", []any{"Pedal & Co", "Alpenrad Sport"})
	runScoreCases(t, amp, []scoreCase{
		{"an and inside a gold name", "Pedal and Co and Alpenrad Sport", true},
		{"ampersand", "Alpenrad Sport; Pedal & Co", true},
		{"half a name is an extra", "Pedal, Alpenrad Sport", false},
	})
}

func TestScore_TableByRecallOfGoldRows(t *testing.T) {
	rows := []any{[]any{"Porto", "30000"}, []any{"Brno", "25000"}}
	x := q(t, KindTable, "How many bicycles can each plant assemble per year?", rows)
	runScoreCases(t, x, []scoreCase{
		{"lines", "Porto: 30,000\nBrno: 25,000", true},
		{"semicolons", "Porto 30000; Brno 25000", true},
		{"commas between rows", "Porto 30000, Brno 25000", true},
		{"json rows", `[["Brno", 25000], ["Porto", 30000]]`, true},
		{"cells swapped between rows", "Porto 25000\nBrno 30000", false},
		{"one row of two", "Porto 30000", false},
	})
	half := q(t, KindTable, "Capacities?", rows, func(x *Question) { x.MinRecall = 0.5 })
	v := Score(half, "Porto 30000")
	if !v.Correct || v.Score != 0.5 {
		t.Errorf("half the rows with min_recall 0.5: %+v, want correct with score 0.5", v)
	}
}

func TestQuestion_PrepareNamesEveryProblem(t *testing.T) {
	s := Set{Questions: []Question{
		{ID: "a", Question: "How many?", Kind: KindNumber, Answer: "many"},
		{ID: "a", Question: "", Kind: "colour", Answer: 1},
		{ID: "c", Question: "Which?", Kind: KindList, Answer: []any{}},
		{ID: "d", Question: "Rows?", Kind: KindTable, Answer: []any{"x"}},
		{ID: "e", Question: "Share?", Kind: KindPercent, Answer: 5, Tolerance: -1, Scale: "dozen"},
	}}
	err := s.Prepare()
	if err == nil {
		t.Fatal("Prepare accepted a bad set")
	}
	for _, want := range []string{
		"question a: answer: many: a number answer is a number",
		"question a: id is used twice",
		"question a: question: is empty",
		`kind "colour": must be one of`,
		"question c: answer: the list is empty",
		"question d: answer: row 1:",
		"question e: tolerance: -1",
		`question e: scale: "dozen"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
