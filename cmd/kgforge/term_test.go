package main

import (
	"strings"
	"testing"

	"kgforge/stages"
)

// hostile is text a document can hold: it sets the terminal's title,
// clears the screen, and reverses what follows it.
const hostile = "Acme\x1b]0;owned\x07\x1b[2J\u009b31m\u202eCorp\r"

// hostileEscaped is hostile as it must be printed.
const hostileEscaped = `Acme\x1b]0;owned\x07\x1b[2J\u009b31m\u202eCorp\x0d`

// rawControl reports the first control byte or rune of s that a terminal
// acts on, other than a line break or a tab.
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			return r, true
		}
	}
	return 0, false
}

func TestTermText(t *testing.T) {
	cases := []struct {
		name, in, want, wantCell string
	}{
		{"plain", "Velora ships to Lyon", "Velora ships to Lyon", "Velora ships to Lyon"},
		{"accents and symbols stay", "Zoë → Ünïcode ✓", "Zoë → Ünïcode ✓", "Zoë → Ünïcode ✓"},
		{"escape sequences", hostile, hostileEscaped, hostileEscaped},
		{"line breaks and tabs", "a\tb\nc", "a\tb\nc", `a\x09b\x0ac`},
		{"not UTF-8", "a\x9bb\xff", `a\x9bb\xff`, `a\x9bb\xff`},
		{"DEL and isolates", "x\x7fy\u2066z", `x\x7fy\u2066z`, `x\x7fy\u2066z`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := termText(c.in); got != c.want {
				t.Errorf("termText(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := termCell(c.in); got != c.wantCell {
				t.Errorf("termCell(%q) = %q, want %q", c.in, got, c.wantCell)
			}
		})
	}
}

// TestQuery_PrintsDocumentTextEscaped runs kgforge query over a bundle
// whose node name holds escape sequences: what reaches stdout shows them
// as text.
func TestQuery_PrintsDocumentTextEscaped(t *testing.T) {
	out := bundleWithNode(t, hostile+"\tnext\ncell")
	code, stdout, stderr := runCaptured(t, "", "query", "--bundle", out, "SELECT id, name FROM nodes")
	if code != exitOK {
		t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
	}
	if r, ok := rawControl(stdout); ok {
		t.Errorf("stdout holds the raw control %U:\n%q", r, stdout)
	}
	want := "id\tname\nn1\t" + hostileEscaped + `\x09next\x0acell` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", stdout, want)
	}
}

// TestAsk_PrintsModelAndDocumentTextEscaped runs kgforge ask against a
// fake model whose tool call and answer hold escape sequences, over a
// bundle whose node name holds them too: neither stdout nor stderr (the
// progress lines, the error of an unanswered question) holds a raw one.
func TestAsk_PrintsModelAndDocumentTextEscaped(t *testing.T) {
	const (
		ls     = `{"tool":"grep","args":{"pattern":"Acme\u001b[2J"}}`
		answer = `{"tool":"answer","args":{"answer":"It is Acme\u001b]0;owned\u0007\u001b[2J","citations":[{"kind":"node","id":"n1"}],"confidence":0.8}}`
		stuck  = `{"tool":"cat","args":{"id":"\u001b[2J"}}`
	)
	for name, replies := range map[string][]string{"answered": {ls, answer}, "stuck": {stuck}} {
		t.Run(name, func(t *testing.T) {
			fakeAskOllama(t, replies...)
			code, stdout, stderr := runCaptured(t, "", "ask", "--bundle", bundleWithNode(t, hostile), "--model", "m", "Who is Acme?")
			if code != exitOK && code != exitNoAnswer {
				t.Fatalf("exit code %d, stderr:\n%s", code, stderr)
			}
			for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if r, ok := rawControl(s); ok {
					t.Errorf("%s holds the raw control %U:\n%q", what, r, s)
				}
				if !strings.Contains(s, `\x1b[2J`) && !strings.Contains(s, `\u001b[2J`) { // a call's arguments are JSON
					t.Errorf("%s does not show the escape sequence as text:\n%q", what, s)
				}
			}
		})
	}
}

// TestPrintSummary_EscapesRejections renders a report whose rejection
// names a file and quotes a line with escape sequences.
func TestPrintSummary_EscapesRejections(t *testing.T) {
	r := &stages.Report{Stages: map[string]stages.StageReport{}, Rejected: []stages.Reject{
		{Stage: "ingest", Item: "docs/" + hostile + ".md", Reason: "line 3: " + hostile},
	}}
	got := summary(r)
	if r, ok := rawControl(got); ok {
		t.Errorf("summary holds the raw control %U:\n%q", r, got)
	}
	want := "  rejected:  ingest docs/" + hostileEscaped + ".md: line 3: " + hostileEscaped + "\n"
	if !strings.Contains(got, want) {
		t.Errorf("summary:\n%q\nwant a line:\n%q", got, want)
	}
}
