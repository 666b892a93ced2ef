package main

import (
	"strings"
	"testing"
)

func TestErrorLog_ListsMissedAndWrongPairsByName(t *testing.T) {
	p := Problem{ID: "p1", Records: []Record{
		{ID: "1", Name: "AKZO NOBEL", Vector: []float32{1, 0}}, {ID: "2", Name: "AKZO NOVEL", Vector: []float32{2, 0}}, {ID: "3", Name: "ALCATEL\tV"},
	}, Gold: []int{0, 0, 1}}
	var e errorLog
	why := map[[2]string]string{{"1", "2"}: "uncertain: guard_words"}
	e.add("patstat", "m", p, []int{0, 1, 1}, why) // misses 1–2, joins 2–3 wrongly
	var nilLog *errorLog
	nilLog.add("patstat", "m", p, []int{0, 1, 1}, nil) // a nil log is a no-op
	got := string(e.tsv())
	want := "set\tmethod\tproblem\terror\tcosine\tid a\tname a\tid b\tname b\treason\n" +
		"patstat\tm\tp1\tmissed\t1.000\t1\tAKZO NOBEL\t2\tAKZO NOVEL\tuncertain: guard_words\n" +
		"patstat\tm\tp1\twrong\t\t2\tAKZO NOVEL\t3\tALCATEL V\t\n"
	if got != want {
		t.Fatalf("tsv:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.Count(got, "\n"); n != 3 {
		t.Fatalf("%d lines, want 3", n)
	}
}
