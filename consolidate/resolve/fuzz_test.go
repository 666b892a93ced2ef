package resolve

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Names and predicates come from LLM output: any text at all.

// checkNormalForm checks what both normalisers promise of out, the form of
// in: valid UTF-8, words of letters, digits and marks joined by single
// seps, and a fixed point (normalising it again changes nothing).
func checkNormalForm(t *testing.T, name string, normalize func(string) string, sep rune, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q, not UTF-8", name, in, out)
	}
	s := string(sep)
	if strings.HasPrefix(out, s) || strings.HasSuffix(out, s) || strings.Contains(out, s+s) {
		t.Fatalf("%s(%q) = %q: stray %q", name, in, out, sep)
	}
	for _, r := range out {
		if r != sep && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r) {
			t.Fatalf("%s(%q) = %q holds %q", name, in, out, r)
		}
	}
	if again := normalize(out); again != out {
		t.Fatalf("%s not idempotent: %q → %q → %q", name, in, out, again)
	}
}

func FuzzNormalizeName(f *testing.F) {
	for _, s := range []string{"Akzo Nobel N.V.", "Société Générale", "I.B.M.", "ＡＢＣ１２３", "Straße", "O'Neil & Sons", "\xff\xfe", "a\u0301\u0301", "ǅ", "", "\xf0Á"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNormalForm(t, "NormalizeName", NormalizeName, ' ', s, NormalizeName(s))
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
		checkNormalForm(t, "NormalizePredicate", NormalizePredicate, '_', s, p)
		for _, r := range p {
			if unicode.IsUpper(r) {
				t.Fatalf("NormalizePredicate(%q) = %q holds upper case %q", s, p, r)
			}
		}
	})
}
