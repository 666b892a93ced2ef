package bundle

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kgforge/kg"
)

// Posting is one term of one search document: postings.parquet (since
// 1.5), the inverted index that BM25 is computed from in SQL.
type Posting struct {
	Term string
	Doc  int // the document's number in postings_docs.parquet
	TF   int // how often the term occurs in the document
}

// PostingDoc is one search document: a chunk (its text) or a node that is
// not a chunk (its name, aliases and description).
type PostingDoc struct {
	Doc  int
	ID   string // the chunk or node id
	Kind string // "chunk", or the node's kind
	Len  int    // the document's length in terms
}

// maxTermBytes bounds a term; a longer run of letters is cut.
const maxTermBytes = 64

// Terms splits text into its search terms: maximal runs of letters and
// digits, lower-cased, of at least two characters (one for a digit), each
// cut at 64 bytes. The writer indexes documents and the agent's search
// splits queries with it, so both agree on what a term is.
func Terms(text string) []string {
	var terms []string
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		t := strings.ToLower(text[start:end])
		start = -1
		if r, size := utf8.DecodeRuneInString(t); size == len(t) && !unicode.IsDigit(r) {
			return // one letter
		}
		if len(t) > maxTermBytes {
			i := maxTermBytes
			for i > 0 && !utf8.RuneStart(t[i]) {
				i--
			}
			t = t[:i]
		}
		terms = append(terms, t)
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
	return terms
}

// postingBuilder indexes documents one at a time, so that chunks streamed
// to their file are indexed on the way and their text is not kept: it
// holds the interned terms and each term's postings.
type postingBuilder struct {
	ids     map[string]int32
	terms   []string
	buckets [][]docTF
	docs    []PostingDoc
	seq     []int32
}

type docTF struct{ doc, tf int32 }

func newPostingBuilder() *postingBuilder { return &postingBuilder{ids: map[string]int32{}} }

// chunk indexes a chunk's text.
func (pb *postingBuilder) chunk(c kg.Chunk) { pb.add(c.ID, string(kg.NodeChunk), c.Text) }

func (pb *postingBuilder) add(id, kind, text string) {
	pb.seq = pb.seq[:0]
	for _, t := range Terms(text) {
		n, ok := pb.ids[t]
		if !ok {
			n = int32(len(pb.terms))
			pb.ids[t], pb.terms, pb.buckets = n, append(pb.terms, t), append(pb.buckets, nil)
		}
		pb.seq = append(pb.seq, n)
	}
	if len(pb.seq) == 0 {
		return
	}
	doc := int32(len(pb.docs))
	pb.docs = append(pb.docs, PostingDoc{Doc: len(pb.docs), ID: id, Kind: kind, Len: len(pb.seq)})
	seq := pb.seq
	slices.Sort(seq)
	for i := 0; i < len(seq); {
		j := i + 1
		for j < len(seq) && seq[j] == seq[i] {
			j++
		}
		pb.buckets[seq[i]] = append(pb.buckets[seq[i]], docTF{doc, int32(j - i)})
		i = j
	}
}

// finish indexes the nodes that are not chunks, after the chunks, and
// returns the postings sorted by term, then document.
func (pb *postingBuilder) finish(nodes []kg.Node) ([]Posting, []PostingDoc) {
	for _, n := range nodes {
		if n.Kind == kg.NodeChunk {
			continue
		}
		pb.add(n.ID, string(n.Kind), n.Name+"\n"+strings.Join(n.Aliases, "\n")+"\n"+n.Description)
	}
	// Sorted by term, the rows of one term lie together: a reader that
	// filters by term skips the row groups whose range misses it.
	order := make([]int32, len(pb.terms))
	total := 0
	for i := range order {
		order[i] = int32(i)
		total += len(pb.buckets[i])
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(pb.terms[a], pb.terms[b]) })
	posts := make([]Posting, 0, total)
	for _, t := range order {
		for _, d := range pb.buckets[t] {
			posts = append(posts, Posting{Term: pb.terms[t], Doc: int(d.doc), TF: int(d.tf)})
		}
	}
	return posts, pb.docs
}

var postingColumns = []column[Posting]{
	{"term", str, func(x *Posting) any { return x.Term }, func(x *Posting, v any) { x.Term = s(v) }},
	{"doc", i64, func(x *Posting) any { return int64(x.Doc) }, func(x *Posting, v any) { x.Doc = n(v) }},
	{"tf", i64, func(x *Posting) any { return int64(x.TF) }, func(x *Posting, v any) { x.TF = n(v) }},
}

var postingDocColumns = []column[PostingDoc]{
	{"doc", i64, func(x *PostingDoc) any { return int64(x.Doc) }, func(x *PostingDoc, v any) { x.Doc = n(v) }},
	{"id", str, func(x *PostingDoc) any { return x.ID }, func(x *PostingDoc, v any) { x.ID = s(v) }},
	{"kind", str, func(x *PostingDoc) any { return x.Kind }, func(x *PostingDoc, v any) { x.Kind = s(v) }},
	{"len", i64, func(x *PostingDoc) any { return int64(x.Len) }, func(x *PostingDoc, v any) { x.Len = n(v) }},
}
