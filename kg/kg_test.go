package kg

import "testing"

func TestID_DeterministicAndSeparated(t *testing.T) {
	if ID("a", "b") != ID("a", "b") {
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
	for in, want := range map[string]string{"  Kestrel\tAlloys ": "kestrel alloys", "VELORA": "velora", "": ""} {
		if got := NormalizeName(in); got != want {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
}
