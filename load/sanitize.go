package load

import (
	"slices"
	"strings"
	"unicode"

	"kgforge/kg"
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

// kindLabels is the label of each node kind's structural nodes.
var kindLabels = map[kg.NodeKind]string{
	kg.NodeConcept: "Entity", kg.NodeDocument: "Document", kg.NodeChunk: "Chunk",
	kg.NodeTable: "Table", kg.NodeColumn: "Column",
}

// reservedLabels are the labels kgforge gives itself: NodeLabel,
// BuildLabel and LockLabel, on which the loader's constraints and queries
// rest, and the label of each node kind. An extracted type never becomes
// one of them.
var reservedLabels = append([]string{NodeLabel, BuildLabel, LockLabel}, kg.StructuralLabels...)

// reservedRelTypes are the types of the structural relationships that
// consolidate writes (document to chunk, chunk to entity, table to column,
// table to table) and of the links between the semantic layer and the data
// layer (concept to table or column, row entity to its table, entity to
// its row). An extracted predicate never becomes one of them.
var reservedRelTypes = []string{
	"HAS_CHUNK", "MENTIONS", "HAS_COLUMN", "JOINS",
	kg.LinkRepresentedBy, kg.LinkMeasuredBy, kg.LinkRowOf, kg.LinkSameAs,
}

// Suffixes that turn an extracted type spelling a reserved name into one
// of its own.
const (
	reservedLabelSuffix   = "Type"
	reservedRelTypeSuffix = "_REL"
)

// NodeTypeLabel returns the label that the label or type s gets on a node
// of kind k: Label(s), except that a reserved label (compared without
// regard to case) other than k's own gets the suffix "Type". An entity
// typed "KGBuild" is (:KGNode:Entity:KGBuildType {type: "KGBuild"}), never
// a build record; one typed "document" is a DocumentType, never a Document.
func NodeTypeLabel(k kg.NodeKind, s string) string {
	l := Label(s)
	if l == "" || l == kindLabels[k] || !foldIn(l, reservedLabels) {
		return l
	}
	return l + reservedLabelSuffix
}

// EdgeType returns the relationship type of an edge typed s: RelType(s),
// except that a type spelling a reserved one (without regard to case)
// gets the suffix "_REL" unless s is that reserved type exactly, as
// consolidate writes its structural edges (extracted predicates are lower
// snake case): a fact "mentions" is MENTIONS_REL, never MENTIONS.
func EdgeType(s string) string {
	t := RelType(s)
	if s == t || !foldIn(t, reservedRelTypes) {
		return t
	}
	return t + reservedRelTypeSuffix
}

func foldIn(s string, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(s, n) })
}
