package main

import "testing"

func TestTieProbe(t *testing.T) {
	for _, c := range []struct {
		sql, probe string
		keys, n    int
	}{
		{
			"SELECT Hometown FROM teacher GROUP BY Hometown ORDER BY COUNT(*) DESC LIMIT 1",
			"SELECT Hometown, COUNT(*) FROM teacher GROUP BY Hometown ORDER BY COUNT(*) DESC LIMIT 2", 1, 1,
		},
		{
			"select name , age from singer order by age desc, name asc limit 3;",
			"select name , age, age, name from singer order by age desc, name asc LIMIT 4", 2, 3,
		},
		{
			"SELECT DISTINCT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id WHERE T2.x = 'ORDER BY' ORDER BY T1.age NULLS LAST LIMIT 5",
			"SELECT DISTINCT T1.name, T1.age FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id WHERE T2.x = 'ORDER BY' ORDER BY T1.age NULLS LAST LIMIT 6", 1, 5,
		},
		{
			"SELECT name FROM s WHERE id IN (SELECT id FROM t ORDER BY x LIMIT 1) ORDER BY sum(y) DESC LIMIT 2",
			"SELECT name, sum(y) FROM s WHERE id IN (SELECT id FROM t ORDER BY x LIMIT 1) ORDER BY sum(y) DESC LIMIT 3", 1, 2,
		},
	} {
		probe, keys, n, ok := tieProbe(c.sql)
		if !ok || probe != c.probe || keys != c.keys || n != c.n {
			t.Errorf("tieProbe(%q)\n = %q, %d, %d, %v\nwant %q, %d, %d", c.sql, probe, keys, n, ok, c.probe, c.keys, c.n)
		}
	}
	for _, sql := range []string{
		"SELECT count(*) FROM singer",
		"SELECT name FROM singer ORDER BY age",
		"SELECT name FROM s WHERE id IN (SELECT id FROM t ORDER BY x LIMIT 1)",
		"SELECT name FROM a UNION SELECT name FROM b ORDER BY name LIMIT 1",
		"SELECT name FROM a ORDER BY age LIMIT 0",
		"SELECT name FROM a ORDER BY age LIMIT 1 OFFSET 2",
	} {
		if probe, _, _, ok := tieProbe(sql); ok {
			t.Errorf("tieProbe(%q) = %q, want no probe", sql, probe)
		}
	}
}

func TestTiesAtLimit(t *testing.T) {
	rows := [][]string{{"Bolton", "2"}, {"Horwich", "1"}, {"Blackrod", "1"}}
	if tiesAtLimit(rows, 1, 1) {
		t.Error("a clear first place counted as a tie")
	}
	if !tiesAtLimit(rows, 1, 2) {
		t.Error("two hometowns with one teacher each at the cut of two: not a tie")
	}
	if tiesAtLimit(rows[:2], 1, 2) {
		t.Error("no row past the cut, yet a tie")
	}
	if tiesAtLimit([][]string{{"a", "1", "x"}, {"b", "1", "y"}}, 2, 1) {
		t.Error("the second key differs, yet a tie")
	}
}
