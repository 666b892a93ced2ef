package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// termText makes text that documents or the model wrote safe to print for
// a person: a line break and a tab stay, every other control character
// (C0, DEL, C1), a bidirectional override and each byte that is not UTF-8
// is written as a Go escape (\x1b, \u009b, \u202e), so no escape sequence
// reaches the terminal (a title set, a screen cleared, text hidden). The
// human outputs of every command go through it; JSON output is escaped
// by encoding/json already.
func termText(s string) string { return escapeControls(s, "\n\t") }

// termCell is termText for one cell of tab-separated output: its tabs and
// line breaks are escaped too, so a cell cannot break the table's layout.
func termCell(s string) string { return escapeControls(s, "") }

// escapeControls escapes what termText describes, except the bytes of keep.
func escapeControls(s, keep string) string {
	if safeForTerminal(s, keep) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unsafeRune(r) && !strings.ContainsRune(keep, r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func safeForTerminal(s, keep string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return false
			}
		}
		if unsafeRune(r) && !strings.ContainsRune(keep, r) {
			return false
		}
	}
	return true
}

// unsafeRune reports whether a terminal may act on r instead of showing
// it: the C0 controls, DEL, the C1 controls (0x9b is an 8-bit CSI), and
// the bidirectional embeddings, overrides and isolates that reorder what
// follows them.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
