package docx

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// style is a paragraph style of word/styles.xml.
type style struct {
	name    string // the style's built-in name ("heading 1"), English whatever the language of Word
	basedOn string // the id of the style it inherits from
	outline int    // w:outlineLvl: 0 to 8 for headings, 9 for body text; -1 when unset
}

// maxBasedOn bounds how far a style's inheritance is followed (a chain
// may loop in a corrupt file).
const maxBasedOn = 16

// styleLevels reads word/styles.xml and returns the heading level of every
// paragraph style by its id: 0 for a title, 1 to 9 for headings, -1 for a
// style that is no heading. A heading is told by the style's name ("Title",
// "heading N"), which Word writes in English whatever its language while the
// id is translated ("Ttulo1" in Portuguese), or by its outline level, its
// own or inherited.
func styleLevels(data []byte) (map[string]int, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	styles := map[string]*style{}
	var cur *style
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("malformed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !isWord(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "style":
				cur = nil
				if typ := attr(t, "type"); typ == "" || typ == "paragraph" {
					cur = &style{outline: -1}
					styles[attr(t, "styleId")] = cur
				}
			case "name":
				if cur != nil {
					cur.name = attr(t, "val")
				}
			case "basedOn":
				if cur != nil {
					cur.basedOn = attr(t, "val")
				}
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(t, "val")); err == nil && cur != nil {
					cur.outline = n
				}
			}
		case xml.EndElement:
			if isWord(t.Name) && t.Name.Local == "style" {
				cur = nil
			}
		}
	}
	levels := make(map[string]int, len(styles))
	for id := range styles {
		levels[id] = styleLevel(styles, id)
	}
	return levels, nil
}

// styleLevel returns the heading level of a style, as styleLevels says.
func styleLevel(styles map[string]*style, id string) int {
	for range maxBasedOn {
		s := styles[id]
		if s == nil {
			return -1
		}
		name := strings.ToLower(oneLine(s.name))
		if name == "title" {
			return 0
		}
		if n, ok := strings.CutPrefix(name, "heading "); ok && len(n) == 1 && n[0] >= '1' && n[0] <= '9' {
			return int(n[0] - '0')
		}
		switch {
		case s.outline >= 0 && s.outline <= 8:
			return s.outline + 1
		case s.outline == 9:
			return -1
		}
		id = s.basedOn
	}
	return -1
}
