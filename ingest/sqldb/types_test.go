package sqldb

import "testing"

func TestAffinity(t *testing.T) {
	for _, c := range []struct{ declared, want string }{
		{"INTEGER", "BIGINT"},
		{"tinyint(1)", "BIGINT"},
		{"UNSIGNED BIG INT", "BIGINT"},
		{"POINT", "BIGINT"}, // "INT" comes first in SQLite's rules too
		{"VARCHAR(40)", "VARCHAR"},
		{"NCHAR(2)", "VARCHAR"},
		{"CLOB", "VARCHAR"},
		{"text", "VARCHAR"},
		{"BLOB", "BLOB"},
		{"", ""},
		{"  ", ""},
		{"REAL", "DOUBLE"},
		{"FLOAT", "DOUBLE"},
		{"DOUBLE PRECISION", "DOUBLE"},
		{"BOOLEAN", "BOOLEAN"},
		{"bool", "BOOLEAN"},
		{"DATE", "DATE"},
		{"DATETIME", "TIMESTAMP"},
		{"TIMESTAMP", "TIMESTAMP"},
		{"TIME", "VARCHAR"},
		{"NUMERIC", "DOUBLE"},
		{"DECIMAL(10,2)", "DOUBLE"},
		{"MONEY", "DOUBLE"},
	} {
		if got := affinity(c.declared); got != c.want {
			t.Errorf("affinity(%q) = %q, want %q", c.declared, got, c.want)
		}
	}
}

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name   string
		want   string
		counts classCounts
		typ    string
	}{
		{"empty column keeps its type", "DATE", classCounts{}, "DATE"},
		{"empty column without a type", "", classCounts{}, "VARCHAR"},
		{"integers", "BIGINT", classCounts{n: 3, integers: 3}, "BIGINT"},
		{"integers and reals", "BIGINT", classCounts{n: 3, integers: 2, reals: 1}, "DOUBLE"},
		{"integers and text", "BIGINT", classCounts{n: 3, integers: 2}, "VARCHAR"},
		{"reals declared text", "VARCHAR", classCounts{n: 1, reals: 1}, "VARCHAR"},
		{"booleans", "BOOLEAN", classCounts{n: 2, integers: 2, bools: 2}, "BOOLEAN"},
		{"boolean column with a 2", "BOOLEAN", classCounts{n: 2, integers: 2, bools: 1}, "BIGINT"},
		{"dates", "DATE", classCounts{n: 2, dates: 2, timestamps: 2}, "DATE"},
		{"dates with times", "DATE", classCounts{n: 2, dates: 1, timestamps: 2}, "TIMESTAMP"},
		{"dates and junk", "DATE", classCounts{n: 2, dates: 1, timestamps: 1}, "VARCHAR"},
		{"timestamps as unix seconds", "TIMESTAMP", classCounts{n: 1, integers: 1}, "VARCHAR"},
		{"blobs", "BLOB", classCounts{n: 1, blobs: 1}, "BLOB"},
		{"text in a blob column", "BLOB", classCounts{n: 2, blobs: 1}, "VARCHAR"},
		{"no type, blobs", "", classCounts{n: 1, blobs: 1}, "BLOB"},
		{"no type, numbers", "", classCounts{n: 2, integers: 1, reals: 1}, "DOUBLE"},
	} {
		if got := decide(c.want, c.counts); got != c.typ {
			t.Errorf("%s: decide(%q, %+v) = %s, want %s", c.name, c.want, c.counts, got, c.typ)
		}
	}
}

func TestNumericTypmod(t *testing.T) {
	for _, c := range []struct {
		typmod int32
		p, s   int
		ok     bool
	}{
		{-1, 0, 0, false},
		{(10<<16 | 2) + 4, 10, 2, true},
		{38<<16 + 4, 38, 0, true},
		{(5<<16 | (-2 & 0x7ff)) + 4, 5, -2, true}, // numeric(5,-2), PostgreSQL 15+
	} {
		p, s, ok := numericTypmod(c.typmod)
		if p != c.p || s != c.s || ok != c.ok {
			t.Errorf("numericTypmod(%d) = %d, %d, %v; want %d, %d, %v", c.typmod, p, s, ok, c.p, c.s, c.ok)
		}
	}
}
