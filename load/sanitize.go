package load

import (
	"strings"
	"unicode"
)

const maxIdent = 64

// Label returns s as a Neo4j label: ASCII letters and digits in upper camel
// case, starting with a letter; "" when nothing usable is left.
func Label(s string) string {
	var b strings.Builder
	upper := true
	for _, r := range s {
		if r > unicode.MaxASCII || (!unicode.IsLetter(r) && !unicode.IsDigit(r)) {
			upper = true
			continue
		}
		if b.Len() == 0 && !unicode.IsLetter(r) {
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
		if b.Len() == maxIdent {
			break
		}
	}
	return b.String()
}

// RelType returns s as a Neo4j relationship type: ASCII upper snake case,
// starting with a letter; "RELATED_TO" when nothing usable is left.
func RelType(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		if r > unicode.MaxASCII || (!unicode.IsLetter(r) && !unicode.IsDigit(r)) {
			under = b.Len() > 0
			continue
		}
		if b.Len() == 0 && !unicode.IsLetter(r) {
			continue
		}
		if under {
			b.WriteByte('_')
			under = false
		}
		b.WriteRune(unicode.ToUpper(r))
		if b.Len() >= maxIdent {
			break
		}
	}
	if b.Len() == 0 {
		return "RELATED_TO"
	}
	return b.String()
}
