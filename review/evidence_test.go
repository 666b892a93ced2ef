package review

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"kgforge/kg"
)

func TestSnippet(t *testing.T) {
	text := "Die Fräsmaschine in Köln läuft."
	chunks := map[string]*kg.Chunk{"c": {ID: "c", SourceID: "s", Text: text, Span: kg.Span{Start: 100, End: 100 + len(text)}}}
	at := func(s string) (int, int) {
		i := strings.Index(text, s)
		return 100 + i, 100 + i + len(s)
	}
	fs, fe := at("Fräsmaschine")
	ks, ke := at("Köln")
	cases := []struct {
		name, ref                   string
		before, match, after, fault string
	}{
		{name: "inside", ref: ref("c", fs, fe), before: "Die ", match: "Fräsmaschine", after: " in Köln läuft."},
		{name: "mid-character bounds widen to whole characters", ref: ref("c", ks+2, ks+3), before: "Die Fräsmaschine in K", match: "ö", after: "ln läuft."},
		{name: "empty span", ref: ref("c", ke, ke), before: "Die Fräsmaschine in Köln", after: " läuft."},
		{name: "straddles the start", ref: ref("c", 90, 104), match: "Die ", after: "Fräsmaschine in Köln läuft.", fault: "outside chunk c"},
		{name: "past the end", ref: ref("c", 500, 510), fault: "outside chunk c"},
		{name: "unknown chunk", ref: "d:1-2", fault: "no chunk d"},
		{name: "end before start", ref: "c:5-2", fault: "malformed"},
		{name: "negative", ref: "c:-5-2", fault: "malformed"},
		{name: "no offsets", ref: "c", fault: "malformed"},
		{name: "no chunk", ref: ":1-2", fault: "malformed"},
		{name: "huge", ref: "c:1-99999999999999999999999", fault: "malformed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := snippet(c.ref, chunks, nil, 100)
			if s.Before != c.before || s.Match != c.match || s.After != c.after || !strings.Contains(s.Problem, c.fault) || (c.fault == "") != (s.Problem == "") {
				t.Errorf("snippet(%s) = %q|%q|%q problem %q; want %q|%q|%q problem %q", c.ref, s.Before, s.Match, s.After, s.Problem, c.before, c.match, c.after, c.fault)
			}
		})
	}
}

func ref(chunk string, start, end int) string { return fmt.Sprintf("%s:%d-%d", chunk, start, end) }

// FuzzSnippet checks that no reference and no chunk makes snippet panic,
// and that it only ever returns whole characters of the chunk's text.
func FuzzSnippet(f *testing.F) {
	f.Add("c:3-7", "Acme Corp supplies frames.", 0, 20)
	f.Add("c:0-3", "Köln", 0, 1)
	f.Add("c:105-110", "short", 100, 0)
	f.Add("c:1-2", "\xff\xfe\x80abc", 0, 2)
	f.Fuzz(func(t *testing.T, ref, text string, start, ctx int) {
		if ctx < 0 || ctx > 1<<20 {
			t.Skip()
		}
		chunks := map[string]*kg.Chunk{"c": {ID: "c", Text: text, Span: kg.Span{Start: start, End: start + len(text)}}}
		s := snippet(ref, chunks, nil, ctx)
		got := strings.TrimSuffix(strings.TrimPrefix(s.Before, "…"), "…") + s.Match + strings.TrimSuffix(s.After, "…")
		if !strings.Contains(text, got) {
			t.Errorf("snippet(%q) = %q, not a piece of the chunk", ref, got)
		}
		if utf8.ValidString(text) && !utf8.ValidString(s.Before+s.Match+s.After) {
			t.Errorf("snippet(%q) cut a character: %q|%q|%q", ref, s.Before, s.Match, s.After)
		}
	})
}
