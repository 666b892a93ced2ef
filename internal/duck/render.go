package duck

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Layouts of DuckDB's temporal types, as DuckDB itself prints them.
const (
	layoutDate        = "2006-01-02"
	layoutTime        = "15:04:05.999999"
	layoutTimestamp   = "2006-01-02 15:04:05.999999"
	layoutTimestampNS = "2006-01-02 15:04:05.999999999"
)

// render writes one value of a column of DuckDB type dbType (as the driver
// names it: DATE, TIMESTAMPTZ, VARCHAR[], ...) the way DuckDB would, not in
// Go's syntax: DATE 2025-02-24, TIMESTAMP 2025-02-24 10:30:00, TIMESTAMPTZ
// 2025-02-24 10:30:00Z, lists [a, b], structs {'k': v}, maps {k=v}, NULL.
func render(v any, dbType string) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case time.Time:
		return renderTime(x, dbType)
	case []byte:
		if dbType == "UUID" && len(x) == 16 {
			u := duckdb.UUID(x)
			return u.String()
		}
		return renderBlob(x)
	case []any:
		elem := strings.TrimSuffix(dbType, "[]")
		if elem == dbType {
			elem = "" // an ARRAY (TYPE[n]) or an unknown element type
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e, elem)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return renderStruct(x)
	case duckdb.OrderedMap:
		keys, vals := x.Keys(), x.Values()
		parts := make([]string, len(keys))
		for i := range keys {
			parts[i] = render(keys[i], "") + "=" + render(vals[i], "")
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case duckdb.Interval:
		return renderInterval(x)
	case duckdb.Union:
		return render(x.Value, "")
	case duckdb.Decimal:
		return renderDecimal(x)
	case *big.Int:
		return x.String()
	default:
		return fmt.Sprint(x)
	}
}

// renderStruct writes a struct as DuckDB does, its fields in name order
// (the driver hands them over as a Go map, which has no order).
func renderStruct(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = QuoteString(k) + ": " + render(m[k], "")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// renderTime writes a temporal value by its DuckDB type. Inside a struct or
// a map the type is not known (""): a value at midnight UTC is taken to be
// a date, anything else a timestamp.
func renderTime(t time.Time, dbType string) string {
	switch dbType {
	case "DATE":
		return t.Format(layoutDate)
	case "TIME":
		return t.Format(layoutTime)
	case "TIMETZ":
		return t.Format(layoutTime + "Z07:00")
	case "TIMESTAMPTZ":
		return t.Format(layoutTimestamp + "Z07:00")
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS":
		return t.Format(layoutTimestamp)
	case "TIMESTAMP_NS":
		return t.Format(layoutTimestampNS)
	}
	if t.Location() == time.UTC && t.Equal(t.Truncate(24*time.Hour)) {
		return t.Format(layoutDate)
	}
	return t.Format(layoutTimestampNS)
}

// renderDecimal writes a decimal with all the digits of its scale, as
// DuckDB does (12.50, not 12.5).
func renderDecimal(d duckdb.Decimal) string {
	if d.Value == nil {
		return "NULL"
	}
	digits := new(big.Int).Abs(d.Value).String()
	sign := ""
	if d.Value.Sign() < 0 {
		sign = "-"
	}
	scale := int(d.Scale)
	if scale == 0 {
		return sign + digits
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

// renderBlob writes bytes as DuckDB does: printable ASCII as it is, every
// other byte as \xHH.
func renderBlob(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, `\x%02X`, c)
		}
	}
	return sb.String()
}

// renderInterval writes an interval as DuckDB does: 1 year 2 months 3 days
// 04:05:06.5, leaving out the parts that are zero.
func renderInterval(iv duckdb.Interval) string {
	var parts []string
	unit := func(n int64, name string) {
		if n == 0 {
			return
		}
		if n != 1 && n != -1 {
			name += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, name))
	}
	unit(int64(iv.Months/12), "year")
	unit(int64(iv.Months%12), "month")
	unit(int64(iv.Days), "day")
	if iv.Micros != 0 || len(parts) == 0 {
		d := time.Duration(iv.Micros) * time.Microsecond
		sign := ""
		if d < 0 {
			sign, d = "-", -d
		}
		clock := time.Time{}.Add(d % (24 * time.Hour)).Format(layoutTime)
		hours := int64(d / time.Hour)
		parts = append(parts, fmt.Sprintf("%s%02d%s", sign, hours, clock[2:]))
	}
	return strings.Join(parts, " ")
}
