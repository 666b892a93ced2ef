package eval

import (
	"strings"
	"testing"
)

func TestCheckGold_RefusesAResultThatIsNotTheAnswer(t *testing.T) {
	cases := []struct {
		name string
		q    *Question
		rows [][]string
		want string // "" for a result that is the answer
	}{
		{"number", q(t, KindNumber, "How many?", 8), [][]string{{"8"}}, ""},
		{"number changed", q(t, KindNumber, "How many?", 8), [][]string{{"9"}}, `gives "9"`},
		{"no rows", q(t, KindNumber, "How many?", 8), nil, "no rows"},
		{"two values", q(t, KindNumber, "How many?", 8), [][]string{{"8", "9"}}, "want one value"},
		{"percent as fraction", q(t, KindPercent, "Share?", 37.5), [][]string{{"0.375"}}, ""},
		{"bool", q(t, KindBool, "Is it?", false), [][]string{{"false"}}, ""},
		{"bool changed", q(t, KindBool, "Is it?", false), [][]string{{"true"}}, "not the gold answer"},
		{"list in another order", q(t, KindList, "Which?", []any{"A b", "C"}), [][]string{{"c"}, {"a B"}}, ""},
		{"list with one more", q(t, KindList, "Which?", []any{"A b", "C"}), [][]string{{"c"}, {"a B"}, {"d"}}, "not the gold list"},
		{"table", q(t, KindTable, "Rows?", []any{[]any{"Porto", "840"}, []any{"Brno", "960"}}), [][]string{{"Brno", "960"}, {"Porto", "840.0"}}, ""},
		{"table row changed", q(t, KindTable, "Rows?", []any{[]any{"Porto", "840"}, []any{"Brno", "960"}}), [][]string{{"Brno", "961"}, {"Porto", "840"}}, "not the gold rows"},
		{"table row twice", q(t, KindTable, "Rows?", []any{[]any{"Porto", "840"}, []any{"Brno", "960"}}), [][]string{{"Porto", "840"}, {"Porto", "840"}}, "not the gold rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckGold(c.q, c.rows)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("CheckGold: %v, want nil", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("CheckGold: %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestSet_SampleKeepsOrderAndSize(t *testing.T) {
	s := &Set{}
	for i := range 10 {
		s.Questions = append(s.Questions, Question{ID: string(rune('a' + i))})
	}
	got := s.Sample(4, 7)
	if len(got.Questions) != 4 {
		t.Fatalf("%d questions, want 4", len(got.Questions))
	}
	for i := 1; i < len(got.Questions); i++ {
		if got.Questions[i-1].ID >= got.Questions[i].ID {
			t.Errorf("sample out of the set's order: %v", got.Questions)
		}
	}
	if again := s.Sample(4, 7); again.Questions[0].ID != got.Questions[0].ID {
		t.Error("the same seed drew another sample")
	}
	if all := s.Sample(0, 7); len(all.Questions) != 10 {
		t.Error("n = 0 did not keep the whole set")
	}
}
