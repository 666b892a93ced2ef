package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
)

// The synthetic databases are SQLite files, as Spider's are, so that
// kgforge's build reads them with its own SQLite loader. Only package
// ingest/sqldb may import an SQLite driver (kg/imports_test.go), so this
// file writes the format itself: the smallest valid database, one page
// of 64 KiB per table (a table b-tree of one leaf page), the schema on
// page 1, no index, no free page. Rows too many for one page are refused.

// sqliteTable is one table to write: its name, its columns with their
// declared types (CREATE TABLE's text) and its rows; a value is nil, an
// int64, a float64 or a string.
type sqliteTable struct {
	name    string
	columns []sqliteColumn
	rows    [][]any
}

type sqliteColumn struct {
	name, decl string // decl: the declared type and constraints
}

const sqlitePageSize = 65536

// writeSQLite writes tables to a new SQLite file at path.
func writeSQLite(path string, tables []sqliteTable) error {
	pages := make([][]byte, 1+len(tables))
	var schema [][]byte
	for i, t := range tables {
		var cols []string
		for _, c := range t.columns {
			cols = append(cols, sqliteQuote(c.name)+" "+c.decl)
		}
		create := "CREATE TABLE " + sqliteQuote(t.name) + " (" + strings.Join(cols, ", ") + ")"
		schema = append(schema, sqliteRecord([]any{"table", t.name, t.name, int64(i + 2), create}))
		var cells [][]byte
		for _, r := range t.rows {
			if len(r) != len(t.columns) {
				return fmt.Errorf("sqlite table %s: a row of %d values for %d columns", t.name, len(r), len(t.columns))
			}
			cells = append(cells, sqliteRecord(r))
		}
		page, err := sqliteLeaf(cells, 0)
		if err != nil {
			return fmt.Errorf("sqlite table %s: %w", t.name, err)
		}
		pages[i+1] = page
	}
	first, err := sqliteLeaf(schema, 100)
	if err != nil {
		return fmt.Errorf("sqlite schema: %w", err)
	}
	h := first[:100]
	copy(h, "SQLite format 3\x00")
	binary.BigEndian.PutUint16(h[16:], 1) // 1 stands for 65536
	h[18], h[19] = 1, 1                   // rollback journal
	h[21], h[22], h[23] = 64, 32, 32      // payload fractions, fixed by the format
	binary.BigEndian.PutUint32(h[24:], 1) // change counter
	binary.BigEndian.PutUint32(h[28:], uint32(len(pages)))
	binary.BigEndian.PutUint32(h[40:], 1)       // schema cookie
	binary.BigEndian.PutUint32(h[44:], 4)       // schema format
	binary.BigEndian.PutUint32(h[56:], 1)       // UTF-8
	binary.BigEndian.PutUint32(h[92:], 1)       // the change counter the size is valid for
	binary.BigEndian.PutUint32(h[96:], 3045000) // the SQLite version that wrote it
	pages[0] = first
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	for _, p := range pages {
		if _, err := f.Write(p); err != nil {
			_ = f.Close() // the write's error is the one to report
			return err
		}
	}
	return f.Close()
}

// sqliteLeaf is a table b-tree leaf page holding records as rows 1, 2,
// ...; its header starts at off (100 on page 1, after the file header).
func sqliteLeaf(records [][]byte, off int) ([]byte, error) {
	page := make([]byte, sqlitePageSize)
	end := sqlitePageSize
	ptr := off + 8
	for i, rec := range records {
		if len(rec) > sqlitePageSize-35 {
			return nil, fmt.Errorf("a row of %d bytes needs an overflow page", len(rec))
		}
		cell := sqliteVarint(nil, uint64(len(rec)))
		cell = sqliteVarint(cell, uint64(i+1))
		cell = append(cell, rec...)
		if end-len(cell) < ptr+2 {
			return nil, fmt.Errorf("%d rows do not fit one page", len(records))
		}
		end -= len(cell)
		copy(page[end:], cell)
		binary.BigEndian.PutUint16(page[ptr:], uint16(end))
		ptr += 2
	}
	page[off] = 0x0d // leaf of a table b-tree
	binary.BigEndian.PutUint16(page[off+3:], uint16(len(records)))
	binary.BigEndian.PutUint16(page[off+5:], uint16(end%sqlitePageSize)) // 0 stands for 65536
	return page, nil
}

// sqliteRecord is the record format of one row.
func sqliteRecord(values []any) []byte {
	var types, body []byte
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			types = sqliteVarint(types, 0)
		case int64:
			types = sqliteVarint(types, 6)
			body = binary.BigEndian.AppendUint64(body, uint64(v))
		case float64:
			types = sqliteVarint(types, 7)
			body = binary.BigEndian.AppendUint64(body, math.Float64bits(v))
		case string:
			types = sqliteVarint(types, uint64(2*len(v)+13))
			body = append(body, v...)
		default:
			panic(fmt.Sprintf("sqlite record: a value of type %T", v))
		}
	}
	// The header's size counts itself; its varint is one byte below 128.
	n := len(types) + 1
	if n >= 128 {
		n++
	}
	return append(append(sqliteVarint(nil, uint64(n)), types...), body...)
}

// sqliteVarint appends SQLite's big-endian varint of v (below 2^56).
func sqliteVarint(b []byte, v uint64) []byte {
	var tmp [9]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte(v & 0x7f)
		if i < len(tmp)-1 {
			tmp[i] |= 0x80
		}
		v >>= 7
		if v == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

// sqliteQuote quotes an identifier.
func sqliteQuote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
