package bundle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kgforge/internal/duck"
)

// TableDigest is the logical digest of one table of the data file (since
// 1.3): two bundles whose tables hold the same rows under the same columns
// have equal digests, although the bytes of their data files differ.
// docs/bundle.md defines SHA256 so that it can be recomputed without
// kgforge.
type TableDigest struct {
	Columns []TableColumn `json:"columns"`
	Rows    int64         `json:"rows"`
	SHA256  string        `json:"sha256"`
}

// TableColumn is a column's name and DuckDB type.
type TableColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// digestVersion is the first minor version of format 1 whose manifest has
// table digests.
const digestVersion = 3

// digestData computes the digest of every table of the data file at path.
func digestData(ctx context.Context, path string, s duck.Settings) (map[string]TableDigest, error) {
	got, err := duck.DigestTables(ctx, path, s)
	if err != nil {
		return nil, err
	}
	out := make(map[string]TableDigest, len(got))
	for name, d := range got {
		cols := make([]TableColumn, len(d.Columns))
		for i, c := range d.Columns {
			cols[i] = TableColumn(c)
		}
		out[name] = TableDigest{Columns: cols, Rows: d.Rows, SHA256: d.SHA256}
	}
	return out, nil
}

// HasTableDigests reports whether the manifest records table digests; a
// bundle older than format 1.3 has none.
func (m Manifest) HasTableDigests() bool { return m.TableDigests != nil }

// checkManifestDigests refuses a manifest of format 1.3 or later without
// table digests.
func checkManifestDigests(m Manifest) error {
	_, minor, _ := strings.Cut(m.Version, ".")
	if n, err := strconv.Atoi(minor); err == nil && n >= digestVersion && m.TableDigests == nil {
		return fmt.Errorf("%w: manifest of format %s has no table_digests", ErrInvalid, m.Version)
	}
	return nil
}

// VerifyTables recomputes the logical digest of every table of the data
// file and compares it with the manifest's, returning every table that
// differs, is missing or is not listed (each error wraps ErrChecksum). A
// bundle without table digests (older than 1.3) has nothing to check. It
// reads every row, so Open leaves it to `kgforge bundle verify`: the data
// file's SHA-256, which Open checks, already pins its bytes.
func (b *Bundle) VerifyTables(ctx context.Context, s duck.Settings) error {
	if !b.Manifest.HasTableDigests() {
		return nil
	}
	got, err := digestData(ctx, b.path(DataFile), s)
	if err != nil {
		return fmt.Errorf("verify tables of bundle %s: %w", b.name(), err)
	}
	var errs []error
	for _, d := range compareTables(b.Manifest.TableDigests, got, sides{"the manifest", DataFile}) {
		errs = append(errs, fmt.Errorf("verify tables of bundle %s: %w: table %s: %s", b.name(), ErrChecksum, d.Name, d.Detail))
	}
	return errors.Join(errs...)
}

// Difference is one way the content of two bundles differs.
type Difference struct {
	Kind   string // "file" or "table"
	Name   string // the file or table
	Detail string // e.g. "only in A", "rows: 19 in A, 20 in B"
}

// Compare lists how the content of bundle A (manifest a) and bundle B
// (manifest b) differs: the files whose checksums differ and the data tables whose
// digests differ, sorted by kind and name. When both record table digests
// the data file is compared by its tables, not its bytes, which differ
// between two builds of the same input. The manifest itself (build id,
// creation time) is not compared.
func Compare(a, b Manifest) []Difference {
	var out []Difference
	byTables := a.HasTableDigests() && b.HasTableDigests()
	ab := sides{"A", "B"}
	for _, name := range unionKeys(a.Files, b.Files) {
		if name == DataFile && byTables {
			continue
		}
		fa, inA := a.Files[name]
		fb, inB := b.Files[name]
		if detail := ab.only(inA, inB); detail != "" {
			out = append(out, Difference{"file", name, detail})
		} else if fa != fb {
			out = append(out, Difference{"file", name, ab.pair("sha256",
				fmt.Sprintf("%s (%d bytes)", short(fa.SHA256), fa.Bytes), fmt.Sprintf("%s (%d bytes)", short(fb.SHA256), fb.Bytes))})
		}
	}
	if byTables {
		out = append(out, compareTables(a.TableDigests, b.TableDigests, ab)...)
	}
	return out
}

func compareTables(a, b map[string]TableDigest, ab sides) []Difference {
	var out []Difference
	for _, name := range unionKeys(a, b) {
		ta, inA := a[name]
		tb, inB := b[name]
		detail := ab.only(inA, inB)
		switch {
		case detail != "":
		case !slices.Equal(ta.Columns, tb.Columns):
			detail = ab.pair("columns", columnList(ta.Columns), columnList(tb.Columns))
		case ta.Rows != tb.Rows:
			detail = ab.pair("rows", strconv.FormatInt(ta.Rows, 10), strconv.FormatInt(tb.Rows, 10))
		case ta.SHA256 != tb.SHA256:
			detail = "same columns and row count, other rows: " + ab.pair("sha256", short(ta.SHA256), short(tb.SHA256))
		default:
			continue
		}
		out = append(out, Difference{"table", name, detail})
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(keys)
	return slices.Compact(keys)
}

// sides names the two things compared in a Difference's Detail.
type sides struct{ a, b string }

func (s sides) only(inA, inB bool) string {
	switch {
	case inA && !inB:
		return "only in " + s.a
	case !inA && inB:
		return "only in " + s.b
	}
	return ""
}

func (s sides) pair(what, a, b string) string {
	return fmt.Sprintf("%s: %s in %s, %s in %s", what, a, s.a, b, s.b)
}

func columnList(cols []TableColumn) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
