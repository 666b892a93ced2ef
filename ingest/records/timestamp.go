package records

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A stampForm is one form of timestamp that may start a log record. Its
// expression is anchored at the start of the line and isolates the token,
// so that nothing of the message after it is ever read as a date; its
// first group is the whole token.
type stampForm struct {
	re    *regexp.Regexp
	parse func(m []string, year time.Time) (time.Time, bool)
}

// pri is an optional syslog priority ("<34>", "<34>1 ") before a timestamp.
const pri = `(?:<\d{1,3}>\d{0,2} ?)?`

// end is what may follow a token: the end of the line or a character that
// cannot continue a number or a word.
const end = `(?:$|[^0-9A-Za-z])`

// isoEnd is end, and also refuses what could continue a time, so that an
// ISO token that does not parse whole is not read in part: no
// "2025-03-03T06:00" out of "2025-03-03T06:00:02Zulu".
const isoEnd = `(?:$|[^0-9A-Za-z:.+\-])`

var stampForms = []stampForm{
	{ // ISO 8601 / RFC 3339, with T or space; Go's log package writes slashes
		re:    regexp.MustCompile(`^` + pri + `\[?((\d{4})[-/](\d{2})[-/](\d{2})[T ](\d{2}:\d{2})(:\d{2})?(?:[.,](\d{1,9}))?(Z|[+-]\d{2}(?::?\d{2})?| [+-]\d{2}:?\d{2})?)` + isoEnd),
		parse: parseISO,
	},
	{ // Apache and NCSA common log format: at the start, or after host, ident and user
		re:    regexp.MustCompile(`^(?:\S+ \S+ \S+ )?\[(\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\]`),
		parse: layoutParse("02/Jan/2006:15:04:05 -0700"),
	},
	{ // Apache error log, ANSI C
		re:    regexp.MustCompile(`^\[?([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d{1,9})? \d{4})` + end),
		parse: layoutParse("Mon Jan _2 15:04:05 2006"),
	},
	{ // syslog (RFC 3164), no year
		re:    regexp.MustCompile(`^` + pri + `(([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?)` + end),
		parse: parseSyslog,
	},
	{ // Unix seconds (with a fraction) or milliseconds as the first field
		re:    regexp.MustCompile(`^\[?((\d{10})(?:\.(\d{1,9}))?|(\d{13}))(?:$|[^0-9A-Za-z.])`),
		parse: parseEpoch,
	},
}

// leadingTime finds the timestamp at the start of line in one of the known
// forms. It returns the time in UTC, the end of the token in line, and
// whether there was one. mod is the file's modification time, which gives
// a year-less timestamp its year.
func leadingTime(line string, mod time.Time) (time.Time, int, bool) {
	line = line[:min(len(line), maxStamp)]
	for _, f := range stampForms {
		idx := f.re.FindStringSubmatchIndex(line)
		if idx == nil {
			continue
		}
		m := make([]string, len(idx)/2)
		for i := range m {
			if idx[2*i] >= 0 {
				m[i] = line[idx[2*i]:idx[2*i+1]]
			}
		}
		if t, ok := f.parse(m, mod); ok {
			return t.UTC(), idx[3], true
		}
	}
	return time.Time{}, 0, false
}

func parseISO(m []string, _ time.Time) (time.Time, bool) {
	var b strings.Builder
	b.WriteString(m[2] + "-" + m[3] + "-" + m[4] + "T" + m[5])
	if m[6] == "" {
		b.WriteString(":00")
	} else {
		b.WriteString(m[6])
	}
	if m[7] != "" {
		b.WriteString("." + m[7])
	}
	zone := strings.TrimPrefix(m[8], " ")
	switch len(zone) {
	case 0:
		zone = "Z"
	case 3: // +01
		zone += ":00"
	case 5: // +0100
		zone = zone[:3] + ":" + zone[3:]
	}
	b.WriteString(zone)
	t, err := time.Parse(time.RFC3339Nano, b.String())
	return t, err == nil
}

func layoutParse(layout string) func([]string, time.Time) (time.Time, bool) {
	return func(m []string, _ time.Time) (time.Time, bool) {
		t, err := time.Parse(layout, m[1])
		return t, err == nil
	}
}

func parseSyslog(m []string, mod time.Time) (time.Time, bool) {
	s := m[2] + " " + m[3] + " " + m[4]
	if m[5] != "" {
		s += "." + m[5]
	}
	t, err := time.Parse("Jan 2 15:04:05", s)
	if err != nil {
		return time.Time{}, false
	}
	return withYear(t, mod)
}

// withYear gives a year-less time the year of mod, the file's modification
// time, or the year before when that would put it more than a day after mod:
// a log written across New Year. Without mod there is no year, hence no time.
func withYear(t, mod time.Time) (time.Time, bool) {
	if mod.IsZero() {
		return time.Time{}, false
	}
	mod = mod.UTC()
	y := time.Date(mod.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	if y.After(mod.Add(24 * time.Hour)) {
		y = y.AddDate(-1, 0, 0)
	}
	return y, true
}

func parseEpoch(m []string, _ time.Time) (time.Time, bool) {
	if m[4] != "" {
		ms, err := strconv.ParseInt(m[4], 10, 64)
		return time.UnixMilli(ms), err == nil
	}
	sec, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var ns int64
	if m[3] != "" {
		frac := (m[3] + "000000000")[:9]
		ns, err = strconv.ParseInt(frac, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
	}
	return time.Unix(sec, ns), true
}

// maxStamp bounds the bytes of a line that may hold its timestamp, so a
// long line costs no more than a short one.
const maxStamp = 256

// layoutTime parses the timestamp that starts line with a Go time layout,
// whatever follows it. It returns the time in UTC, the end of the token and
// whether line starts with such a timestamp.
func layoutTime(layout, line string, mod time.Time) (time.Time, int, bool) {
	line = line[:min(len(line), maxStamp)]
	t, err := time.Parse(layout, line)
	n := len(line)
	if err != nil {
		// time.Parse says where the layout ended and text was left over;
		// what came before is the timestamp.
		var pe *time.ParseError
		if !errors.As(err, &pe) || pe.LayoutElem != "" || !strings.HasPrefix(pe.Message, ": extra text") || !strings.HasSuffix(line, pe.ValueElem) {
			return time.Time{}, 0, false
		}
		n = len(line) - len(pe.ValueElem)
		if t, err = time.Parse(layout, line[:n]); err != nil {
			return time.Time{}, 0, false
		}
	}
	if t.Year() == 0 {
		var ok bool
		if t, ok = withYear(t, mod); !ok {
			return time.Time{}, 0, false
		}
	}
	return t.UTC(), n, true
}

// valueTime reads the time a JSON string holds whole: one of the forms a log
// record may start with, or a date.
func valueTime(s string, mod time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	if isDigits(s) {
		return numberTime(s)
	}
	t, n, ok := leadingTime(s, mod)
	if !ok || strings.TrimRight(s[n:], "]") != "" {
		return time.Time{}, false
	}
	return t, true
}

// numberTime reads a JSON number as Unix time, telling seconds,
// milliseconds, microseconds and nanoseconds apart by size: from 1973 to
// 5138, each unit's range lies apart from the others'.
func numberTime(s string) (time.Time, bool) {
	if isDigits(s) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return time.Time{}, false
		}
		switch {
		case n < 1e11:
			return time.Unix(n, 0).UTC(), true
		case n < 1e14:
			return time.UnixMilli(n).UTC(), true
		case n < 1e17:
			return time.UnixMicro(n).UTC(), true
		}
		return time.Unix(0, n).UTC(), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f >= 1e11 {
		return time.Time{}, false
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).Round(time.Microsecond).UTC(), true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
