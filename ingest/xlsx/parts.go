package xlsx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/xuri/excelize/v2"

	"kgforge/ingest"
)

// maxPartBytes bounds the small XML parts read whole: the package and
// workbook relationships and the workbook itself.
const maxPartBytes = 16 << 20

// relationships is the part of a .rels part that sheetParts needs.
type relationships struct {
	Rels []struct {
		ID     string `xml:"Id,attr"`
		Type   string `xml:"Type,attr"`
		Target string `xml:"Target,attr"`
	} `xml:"Relationship"`
}

// workbook is the part of xl/workbook.xml that sheetParts needs. The id
// attribute is matched by its local name, so both the transitional and the
// strict relationship namespaces work.
type workbook struct {
	Sheets []struct {
		Name string `xml:"name,attr"`
		ID   string `xml:"id,attr"`
	} `xml:"sheets>sheet"`
}

// sheetParts maps each sheet name of a workbook to its worksheet part,
// resolving the package relationships the way excelize does. A sheet whose
// part is missing is left out.
func sheetParts(zr *zip.Reader) (map[string]*zip.File, error) {
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		files[strings.ToLower(strings.ReplaceAll(f.Name, `\`, "/"))] = f
	}
	var pkg relationships
	if err := readPart(files, "_rels/.rels", &pkg); err != nil && !errors.Is(err, errNoPart) {
		return nil, err
	}
	wbPath := "xl/workbook.xml"
	for _, r := range pkg.Rels {
		if r.Type == excelize.SourceRelationshipOfficeDocument || r.Type == excelize.StrictSourceRelationshipOfficeDocument {
			wbPath = strings.TrimPrefix(r.Target, "/")
			break
		}
	}
	var wb workbook
	if err := readPart(files, wbPath, &wb); err != nil {
		return nil, err
	}
	var rels relationships
	relsPath := path.Join(path.Dir(wbPath), "_rels", path.Base(wbPath)+".rels")
	if err := readPart(files, relsPath, &rels); err != nil {
		return nil, err
	}
	targets := make(map[string]string, len(rels.Rels))
	for _, r := range rels.Rels {
		targets[r.ID] = r.Target
	}
	out := make(map[string]*zip.File, len(wb.Sheets))
	for _, s := range wb.Sheets {
		target, ok := targets[s.ID]
		if !ok {
			continue
		}
		p := path.Join(path.Dir(wbPath), target)
		if strings.HasPrefix(target, "/") {
			p = path.Clean(target)
		}
		if f, ok := files[strings.ToLower(strings.TrimPrefix(p, "/"))]; ok {
			out[s.Name] = f
		}
	}
	return out, nil
}

// errNoPart means a package part is missing.
var errNoPart = errors.New("part missing")

// readPart decodes the XML part name (lower case) of files into v.
func readPart(files map[string]*zip.File, name string, v any) error {
	f, ok := files[strings.ToLower(name)]
	if !ok {
		return fmt.Errorf("not an xlsx workbook: %s: %w", name, errNoPart)
	}
	data, err := ingest.ReadZipEntry(f, maxPartBytes)
	if err != nil {
		return err
	}
	if err := xml.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %s: %w", name, err)
	}
	return nil
}

// cellRange is a merged range of cells: rows are 1-based, columns 0-based
// (column A is 0), both bounds inclusive.
type cellRange struct {
	top, bottom, left, right int
}

// mergeMarker is the local name of the element that lists a worksheet's
// merged ranges. It follows sheetData, so it is near the end of the part.
const mergeMarker = "mergeCells"

// scanMerges reads the worksheet part zf to its end and returns its merged
// ranges for which keep is true. Reading the whole part through archive/zip
// also checks its CRC, which excelize does not: a corrupt sheet is refused
// here rather than loaded cut short. Memory stays bounded: the part streams
// through a fixed window and only the kept ranges are held.
func scanMerges(zf *zip.File, keep func(cellRange) bool) (_ []cellRange, err error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, rc.Close()) }()
	const chunk, overlap = 256 << 10, 64
	buf := make([]byte, 0, chunk+overlap)
	for {
		n, rerr := io.ReadFull(rc, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if i := tagStart(buf, mergeMarker); i >= 0 {
			merges, err := decodeMerges(io.MultiReader(bytes.NewReader(buf[i:]), rc), keep)
			if err != nil {
				return nil, err
			}
			// Read the rest so that archive/zip checks the CRC.
			if _, err := io.Copy(io.Discard, rc); err != nil {
				return nil, err
			}
			return merges, nil
		}
		switch {
		case errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF):
			return nil, nil
		case rerr != nil:
			return nil, rerr
		}
		if len(buf) > overlap {
			buf = buf[:copy(buf, buf[len(buf)-overlap:])]
		}
	}
}

// tagStart returns the index of the '<' that opens the first start tag of
// local name in b, with or without a namespace prefix, or -1. A name found in
// text is not a tag: text cannot hold a bare '<'.
func tagStart(b []byte, name string) int {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(name))
		if i < 0 {
			return -1
		}
		i += off
		off = i + 1
		j := i - 1
		if j >= 0 && b[j] == ':' {
			j--
			for j >= 0 && isNameByte(b[j]) {
				j--
			}
		}
		if j >= 0 && b[j] == '<' {
			return j
		}
	}
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// decodeMerges decodes the mergeCell elements of the mergeCells element r
// starts with.
func decodeMerges(r io.Reader, keep func(cellRange) bool) ([]cellRange, error) {
	dec := xml.NewDecoder(r)
	var out []cellRange
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read merged cells: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "mergeCell" {
				continue
			}
			for _, a := range t.Attr {
				if a.Name.Local != "ref" {
					continue
				}
				cr, ok, err := parseRange(a.Value)
				if err != nil {
					return nil, fmt.Errorf("read merged cells: %w", err)
				}
				if ok && keep(cr) {
					out = append(out, cr)
				}
			}
		case xml.EndElement:
			if t.Name.Local == mergeMarker {
				return out, nil
			}
		}
	}
}

// parseRange parses a range reference such as "A1:D2"; ok is false for a
// single cell.
func parseRange(ref string) (cellRange, bool, error) {
	from, to, ok := strings.Cut(ref, ":")
	if !ok {
		return cellRange{}, false, nil
	}
	c1, r1, err := excelize.CellNameToCoordinates(from)
	if err != nil {
		return cellRange{}, false, err
	}
	c2, r2, err := excelize.CellNameToCoordinates(to)
	if err != nil {
		return cellRange{}, false, err
	}
	return cellRange{top: min(r1, r2), bottom: max(r1, r2), left: min(c1, c2) - 1, right: max(c1, c2) - 1}, true, nil
}
