package kg

import "testing"

func TestID_DeterministicAndSeparated(t *testing.T) {
	first, second := ID("a", "b"), ID("a", "b")
	if first != second {
		t.Error("ID is not deterministic")
	}
	if ID("ab", "c") == ID("a", "bc") {
		t.Error("ID does not separate its parts")
	}
	if len(ID("x")) != 32 {
		t.Errorf("ID length = %d, want 32 hex digits", len(ID("x")))
	}
}

func TestNormalizeName(t *testing.T) {
	cases := []struct{ in, want string }{{"  Kestrel\tAlloys ", "kestrel alloys"}, {"VELORA", "velora"}, {"", ""}}
	for _, tc := range cases {
		if got := NormalizeName(tc.in); got != tc.want {
			t.Errorf("NormalizeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
