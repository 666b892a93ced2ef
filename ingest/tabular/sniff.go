package tabular

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encoding is the text encoding of a delimited file.
type Encoding string

// The encodings Sniff tells apart. DuckDB reads UTF-8 itself; the others are
// transcoded to UTF-8 first, because DuckDB's read_csv 'utf-16' is
// little-endian UCS-2 only (a character outside the BMP or a big-endian file
// is refused or garbled) and its 'latin-1' refuses a whole file for any byte
// in 0x80–0x9F, where Windows-1252 puts €, curly quotes and dashes.
const (
	UTF8        Encoding = "utf-8"
	UTF16LE     Encoding = "utf-16le"
	UTF16BE     Encoding = "utf-16be"
	Windows1252 Encoding = "windows-1252" // also Latin-1 (ISO 8859-1), whose printable characters it shares
)

// Dialect is what kgforge detects of a delimited file before DuckDB reads
// it: the encoding. Delimiter, quoting, header and column types are left to
// DuckDB's sniffer, which reads them better than a second sniffer would.
type Dialect struct {
	Encoding Encoding
	BOM      bool // the file starts with its encoding's byte-order mark
}

// SniffLen is how many bytes of a file's start Sniff looks at, and the
// stretch in which a NUL character marks a file as binary.
const SniffLen = 8 << 10

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// Sniff tells the encoding of a delimited file from its first bytes (up to
// SniffLen of them): a byte-order mark says UTF-8, UTF-16LE or UTF-16BE;
// without one, NUL bytes in every other position say UTF-16; otherwise the
// file is UTF-8 when head is valid UTF-8 (a character cut short by the end
// of head allowed) and Windows-1252 when it is not. head being valid UTF-8
// does not make the rest of the file so: the loader checks every byte.
func Sniff(head []byte) Dialect {
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		return Dialect{Encoding: UTF8, BOM: true}
	case bytes.HasPrefix(head, bomUTF16LE):
		return Dialect{Encoding: UTF16LE, BOM: true}
	case bytes.HasPrefix(head, bomUTF16BE):
		return Dialect{Encoding: UTF16BE, BOM: true}
	}
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	if e, ok := utf16ByNULs(head); ok {
		return Dialect{Encoding: e}
	}
	if _, bad := utf8Prefix(head); bad {
		return Dialect{Encoding: Windows1252}
	}
	return Dialect{Encoding: UTF8}
}

// utf16ByNULs recognises UTF-16 without a byte-order mark by the zero high
// bytes of its ASCII and Latin-1 characters: at least half of the code units
// have one, and the other side of a unit is hardly ever zero.
func utf16ByNULs(head []byte) (Encoding, bool) {
	units := len(head) / 2
	if units < 2 {
		return "", false
	}
	var even, odd int
	for i := 0; i+1 < len(head); i += 2 {
		if head[i] == 0 {
			even++
		}
		if head[i+1] == 0 {
			odd++
		}
	}
	switch {
	case 2*odd >= units && even*8 <= odd:
		return UTF16LE, true
	case 2*even >= units && odd*8 <= even:
		return UTF16BE, true
	}
	return "", false
}

// utf8Prefix returns how many bytes of p are valid UTF-8, leaving out a
// character cut short at the end of p, and whether a byte after them is not
// UTF-8 at all.
func utf8Prefix(p []byte) (n int, bad bool) {
	n = len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				n = i
			}
			break
		}
	}
	if utf8.Valid(p[:n]) {
		return n, false
	}
	for i := 0; i < n; {
		r, size := utf8.DecodeRune(p[i:n])
		if r == utf8.RuneError && size == 1 {
			return i, true
		}
		i += size
	}
	return n, false
}

// scanned is what scan learnt of a whole file.
type scanned struct {
	Dialect
	// Guessed says the encoding was inferred, not declared by a
	// byte-order mark or the content's validity: a UTF-8 check that
	// failed, or UTF-16 told by its NUL bytes.
	Guessed bool
	// Invalid says a file with a UTF-8 byte-order mark is not valid UTF-8
	// all through; its bad bytes are read as U+FFFD.
	Invalid bool
	BadByte byte  // when the UTF-8 check failed: the first byte that is not UTF-8
	BadLine int64 // and its 1-based line
}

// transcoded says whether DuckDB must be given a UTF-8 copy of the file.
func (s scanned) transcoded() bool { return s.Encoding != UTF8 || s.Invalid }

// errBlank and the other reasons scan gives are why a file is not
// delimited text; the loader rejects the source with them.
var errBlank = errors.New("no data: the file is empty or holds only blank lines")

// scan reads a whole file, at most limit bytes, and decides its dialect:
// Sniff on its head, then, for UTF-8, that every byte after the head is
// valid UTF-8 too, Windows-1252 otherwise. It refuses an empty or blank
// file, a binary one (a NUL character in its first SniffLen bytes) and a
// file over limit.
func scan(r io.Reader, limit int64) (scanned, error) {
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return scanned{}, err
	}
	head = head[:n]
	s := scanned{Dialect: Sniff(head)}
	body := head
	if s.BOM {
		body = head[bomLen(s.Encoding):]
	}
	s.Guessed = (s.Encoding == UTF16LE || s.Encoding == UTF16BE) && !s.BOM
	if i := nulAt(head, s.Encoding); i >= 0 {
		return scanned{}, fmt.Errorf("binary content: a NUL character at offset %d (not delimited text)", i)
	}
	blank := isBlank(body, s.Encoding)
	if s.Encoding != UTF8 {
		// Nothing more to learn but blankness, and that only while the
		// file looks blank.
		buf := make([]byte, 64<<10)
		for blank {
			m, err := r.Read(buf)
			blank = isBlank(buf[:m], s.Encoding)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return scanned{}, err
			}
		}
		if blank {
			return scanned{}, errBlank
		}
		if s.Encoding == Windows1252 {
			s.Guessed = true
			i, _ := utf8Prefix(head)
			s.BadByte, s.BadLine = head[i], 1+int64(bytes.Count(head[:i], []byte{'\n'}))
		}
		return s, nil
	}
	// UTF-8 so far, or so its mark says: check it all, head included,
	// carrying a character cut by a read into the next one.
	buf := make([]byte, SniffLen+64<<10)
	carry := copy(buf, head)
	var lines int64
	total, skip := int64(n), len(head)
	for atEOF := n < SniffLen; ; {
		if total > limit {
			return scanned{}, fmt.Errorf("over the limit of %d bytes", limit)
		}
		chunk := buf[:carry]
		if !atEOF {
			m, err := r.Read(buf[carry:])
			total += int64(m)
			chunk = buf[:carry+m]
			if errors.Is(err, io.EOF) {
				atEOF = true
			} else if err != nil {
				return scanned{}, err
			}
		}
		valid, bad := utf8Prefix(chunk)
		if bad || (atEOF && valid < len(chunk)) {
			// A UTF-8 mark is believed over a bad byte; without one,
			// the file is another encoding.
			if s.BOM {
				s.Invalid = true
			} else {
				s.Encoding, s.Guessed = Windows1252, true
			}
			s.BadByte, s.BadLine = chunk[valid], lines+1+int64(bytes.Count(chunk[:valid], []byte{'\n'}))
			return s, nil
		}
		if blank {
			// The head, its mark left out, was looked at already.
			blank = isBlank(chunk[min(skip, valid):valid], UTF8)
		}
		skip = 0
		lines += int64(bytes.Count(chunk[:valid], []byte{'\n'}))
		if atEOF {
			break
		}
		carry = copy(buf, chunk[valid:])
	}
	if blank {
		return scanned{}, errBlank
	}
	return s, nil
}

// nulAt returns the offset of the first NUL character of head in encoding
// e, or -1.
func nulAt(head []byte, e Encoding) int {
	if e != UTF16LE && e != UTF16BE {
		return bytes.IndexByte(head, 0)
	}
	for i := 0; i+1 < len(head); i += 2 {
		if head[i] == 0 && head[i+1] == 0 {
			return i
		}
	}
	return -1
}

// bomLen is the length of e's byte-order mark.
func bomLen(e Encoding) int {
	if e == UTF8 {
		return len(bomUTF8)
	}
	return len(bomUTF16LE)
}

// isBlank says p holds only spaces, tabs and line ends (and, in UTF-16, the
// zero bytes that go with them).
func isBlank(p []byte, e Encoding) bool {
	for _, b := range p {
		switch b {
		case ' ', '\t', '\r', '\n':
		case 0:
			if e != UTF16LE && e != UTF16BE {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// transcode copies src, a whole file as scan found it, to dst in UTF-8
// without a byte-order mark; a valid UTF-8 file is copied as it is. Bytes
// not valid in the encoding become U+FFFD.
func transcode(dst io.Writer, src io.Reader, s scanned) error {
	var dec *encoding.Decoder
	switch {
	case s.Invalid:
		dec = unicode.UTF8BOM.NewDecoder()
	case s.Encoding == UTF8:
		_, err := io.Copy(dst, src)
		return err
	case s.Encoding == UTF16LE:
		dec = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder()
	case s.Encoding == UTF16BE:
		dec = unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewDecoder()
	case s.Encoding == Windows1252:
		dec = charmap.Windows1252.NewDecoder()
	default:
		return fmt.Errorf("transcode from %q: unknown encoding", s.Encoding)
	}
	_, err := io.Copy(dst, transform.NewReader(src, dec))
	return err
}
