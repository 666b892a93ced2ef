package resolve

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Names and predicates come from LLM output: any text at all.

func FuzzNormalizeName(f *testing.F) {
	for _, s := range []string{"Akzo Nobel N.V.", "Société Générale", "I.B.M.", "ＡＢＣ１２３", "Straße", "O'Neil & Sons", "\xff\xfe", "a\u0301\u0301", "ǅ", "", "\xf0Á"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeName(s)
		if !utf8.ValidString(n) {
			t.Fatalf("NormalizeName(%q) = %q, not UTF-8", s, n)
		}
		if strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Fatalf("NormalizeName(%q) = %q: stray spaces", s, n)
		}
		for _, r := range n {
			if r != ' ' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r) {
				t.Fatalf("NormalizeName(%q) = %q holds %q", s, n, r)
			}
		}
		if again := NormalizeName(n); again != n {
			t.Fatalf("NormalizeName not idempotent: %q → %q → %q", s, n, again)
		}
		f := nameFeatures(s, s)
		if len(f.suffix) > len(f.name) {
			t.Fatalf("suffix key %q longer than name key %q", f.suffix, f.name)
		}
	})
}

func FuzzNormalizePredicate(f *testing.F) {
	for _, s := range []string{"worksFor", "HTTPServerOf", "is employed by", "WORKS_FOR", "employé_par", "__", "\xff", "aB1cD", "0000000000000000\xf7Į"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := NormalizePredicate(s)
		if !utf8.ValidString(p) {
			t.Fatalf("NormalizePredicate(%q) = %q, not UTF-8", s, p)
		}
		if strings.HasPrefix(p, "_") || strings.HasSuffix(p, "_") || strings.Contains(p, "__") {
			t.Fatalf("NormalizePredicate(%q) = %q: stray underscores", s, p)
		}
		for _, r := range p {
			if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r) {
				t.Fatalf("NormalizePredicate(%q) = %q holds %q", s, p, r)
			}
			if unicode.IsUpper(r) {
				t.Fatalf("NormalizePredicate(%q) = %q holds upper case %q", s, p, r)
			}
		}
		if again := NormalizePredicate(p); again != p {
			t.Fatalf("NormalizePredicate not idempotent: %q → %q → %q", s, p, again)
		}
	})
}
