package html

import (
	"strings"
	"unicode"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"kgforge/ingest"
)

// maxDepth bounds how deep the walk descends. The parser already refuses
// pages nested deeper than 512 elements; this guards the recursion anyway.
const maxDepth = 1024

// extract returns the text of the page's main content, or of the whole page
// when the main content has none; ok is false when the page has no text.
func extract(doc *xhtml.Node) (_ ingest.Document, ok bool) {
	if roots := mainContent(doc); len(roots) > 0 {
		var x extractor
		for _, r := range roots {
			x.walk(r, 0)
		}
		if d, ok := x.Document(); ok {
			return d, true
		}
	}
	var x extractor
	x.walk(doc, 0)
	return x.Document()
}

// mainContent returns the visible <main> elements of the page or, when it has
// none, its outermost visible <article> elements.
func mainContent(doc *xhtml.Node) []*xhtml.Node {
	var mains, articles []*xhtml.Node
	var find func(n *xhtml.Node, depth int)
	find = func(n *xhtml.Node, depth int) {
		if depth > maxDepth || skipped(n) {
			return
		}
		if n.Type == xhtml.ElementNode && n.Namespace == "" {
			switch n.DataAtom {
			case atom.Main:
				mains = append(mains, n)
				return
			case atom.Article:
				articles = append(articles, n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c, depth+1)
		}
	}
	find(doc, 0)
	if len(mains) > 0 {
		return mains
	}
	// Only outermost articles: an article inside one is walked with it.
	var outer []*xhtml.Node
	for _, a := range articles {
		if len(outer) == 0 || !contains(outer[len(outer)-1], a) {
			outer = append(outer, a)
		}
	}
	return outer
}

func contains(a, b *xhtml.Node) bool {
	for p := b.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// skipped reports whether n is an element whose content is not part of the
// page's text.
func skipped(n *xhtml.Node) bool {
	if n.Type != xhtml.ElementNode {
		return n.Type == xhtml.CommentNode || n.Type == xhtml.DoctypeNode
	}
	if n.Namespace == "svg" {
		return true
	}
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template,
		atom.Nav, atom.Aside, atom.Form, atom.Svg, atom.Iframe, atom.Frameset,
		atom.Button, atom.Select, atom.Canvas, atom.Object, atom.Audio, atom.Video:
		return true
	case atom.Header, atom.Footer:
		// A header or footer inside an article or section belongs to it
		// (it is not the page's banner or footer in ARIA's terms).
		if !inSectioning(n) {
			return true
		}
	}
	for _, a := range n.Attr {
		if a.Namespace != "" {
			continue
		}
		v := strings.ToLower(strings.TrimSpace(a.Val))
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if v == "true" {
				return true
			}
		case "role":
			switch v {
			case "navigation", "banner", "contentinfo", "complementary", "search":
				return true
			}
		case "style":
			v = strings.Join(strings.Fields(v), "")
			if strings.Contains(v, "display:none") || strings.Contains(v, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

func inSectioning(n *xhtml.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == xhtml.ElementNode && p.Namespace == "" {
			switch p.DataAtom {
			case atom.Article, atom.Aside, atom.Main, atom.Nav, atom.Section:
				return true
			}
		}
	}
	return false
}

// blockBreaks says how many line breaks an element puts before and after its
// content: 2 makes it a paragraph of its own, 1 ends its lines. Elements not
// listed are inline.
var blockBreaks = map[atom.Atom]int{
	atom.P: 2, atom.Pre: 2, atom.Blockquote: 2, atom.Ul: 2, atom.Ol: 2, atom.Dl: 2,
	atom.Figure: 2, atom.Hr: 2, atom.Address: 2, atom.Details: 2, atom.Fieldset: 2,
	atom.Section: 2, atom.Article: 2, atom.Main: 2, atom.Header: 2, atom.Footer: 2,
	atom.Table: 2, atom.Menu: 2, atom.Center: 2,
	atom.Div: 1, atom.Li: 1, atom.Dt: 1, atom.Dd: 1, atom.Tr: 1, atom.Td: 1, atom.Th: 1,
	atom.Caption: 1, atom.Figcaption: 1, atom.Summary: 1, atom.Legend: 1, atom.Body: 1,
	atom.Html: 1, atom.Thead: 1, atom.Tbody: 1, atom.Tfoot: 1, atom.Dialog: 1,
	atom.Hgroup: 1, atom.Search: 1,
}

// extractor walks the page and lays its text out.
type extractor struct {
	ingest.Layout
	space bool // a space is owed before the next word
	pre   int  // depth of <pre> elements around the walk
}

func (x *extractor) walk(n *xhtml.Node, depth int) {
	if depth > maxDepth || skipped(n) {
		return
	}
	switch n.Type {
	case xhtml.TextNode:
		x.text(n.Data)
		return
	case xhtml.ElementNode:
		if n.Namespace != "" { // MathML: its text, inline
			break
		}
		switch n.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if title := textOf(n); title != "" {
				x.Heading(int(n.Data[1]-'0'), title)
				x.space = false
			}
			return
		case atom.Table:
			if !isLayoutTable(n) {
				x.table(n)
				return
			}
		case atom.Br:
			x.BreakLine()
			x.space = false
			return
		case atom.Pre:
			x.pre++
			defer func() { x.pre-- }()
		}
		if b := blockBreaks[n.DataAtom]; b > 0 {
			x.LineBreak(b)
			defer x.LineBreak(b)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		x.walk(c, depth+1)
	}
}

// text lays out the text of a text node: white space collapsed to one
// space between words, except inside <pre>.
func (x *extractor) text(s string) {
	if x.pre > 0 {
		if s != "" {
			x.PayBreaks()
			x.Write(s)
		}
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		x.space = x.space || s != ""
		return
	}
	if strings.TrimLeftFunc(s, unicode.IsSpace) != s {
		x.space = true
	}
	for _, w := range words {
		if x.BreaksOwed() {
			x.PayBreaks()
			x.space = false
		}
		if x.space && !x.AtLineStart() {
			x.Write(" ")
		}
		x.Write(w)
		x.space = true
	}
	x.space = strings.TrimRightFunc(s, unicode.IsSpace) != s
}

// table lays out a data table whole: one line per row, cells joined by
// " | ", the caption first.
func (x *extractor) table(t *xhtml.Node) {
	var lines []string
	var rows func(n *xhtml.Node)
	rows = func(n *xhtml.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != xhtml.ElementNode || skipped(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Caption:
				if s := textOf(c); s != "" {
					lines = append(lines, s)
				}
			case atom.Thead, atom.Tbody, atom.Tfoot:
				rows(c)
			case atom.Tr:
				if s := row(c); s != "" {
					lines = append(lines, s)
				}
			}
		}
	}
	rows(t)
	if len(lines) == 0 {
		return
	}
	x.LineBreak(2)
	x.PayBreaks()
	x.Write(strings.Join(lines, "\n"))
	x.LineBreak(2)
	x.space = false
}

// row returns a table row's cells joined by " | ", or "" when they are all
// empty.
func row(tr *xhtml.Node) string {
	var cells []string
	empty := true
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != xhtml.ElementNode || (c.DataAtom != atom.Td && c.DataAtom != atom.Th) || skipped(c) {
			continue
		}
		s := textOf(c)
		empty = empty && s == ""
		cells = append(cells, s)
	}
	if empty {
		return ""
	}
	return strings.TrimSpace(strings.Join(cells, " | "))
}

// isLayoutTable reports whether a table lays out a page rather than holding
// data: it says so with its role, or it holds headings or other tables.
func isLayoutTable(t *xhtml.Node) bool {
	for _, a := range t.Attr {
		if a.Key == "role" && (a.Val == "presentation" || a.Val == "none") {
			return true
		}
	}
	for d := range t.Descendants() {
		if d.Type == xhtml.ElementNode && d.Namespace == "" {
			switch d.DataAtom {
			case atom.Table, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				return true
			}
		}
	}
	return false
}

// textOf returns the visible text of n on one line, white space collapsed.
func textOf(n *xhtml.Node) string {
	var b strings.Builder
	var walk func(n *xhtml.Node, depth int)
	walk = func(n *xhtml.Node, depth int) {
		if depth > maxDepth || skipped(n) {
			return
		}
		switch {
		case n.Type == xhtml.TextNode:
			b.WriteString(n.Data)
			return
		case n.Type == xhtml.ElementNode && (n.DataAtom == atom.Br || blockBreaks[n.DataAtom] > 0):
			b.WriteByte(' ')
			defer b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return strings.Join(strings.Fields(b.String()), " ")
}
