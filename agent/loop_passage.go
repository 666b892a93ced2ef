package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"kgforge/bundle"
	"kgforge/kg"
)

// Bounds of the passage search (Toolbox.passage).
const (
	passageDepth  = 50 // search documents BM25 ranks, of which the chunks are read
	passageChunks = 8  // chunks whose sentences are compared
	minPassage    = 12 // bytes of the shortest sentence that can answer
	maxPassage    = 600
	// minPassageShare is the least share of the question's content words
	// a sentence names to answer it (passageAnswer): chosen on TAT-QA dev
	// questions of seed 5 and Spider/KaggleDBQA databases kgforge-agent
	// trained on (docs/benchmarks.md, "Answers from a sentence").
	minPassageShare = 0.6
)

// passage is the sentence of the bundle's documents that names the most
// of a question's content words; none was found when it names none
// (found).
type passage struct {
	chunk   string
	span    kg.Span // the sentence's bytes in its source
	text    string
	covered []string // the question's content words the sentence names
	context string   // the text of the sentence's chunk
}

// found reports whether a sentence names any content word of the question.
func (p passage) found() bool { return len(p.covered) > 0 }

// questionWords are the distinct content words of a question (words,
// without linkStopWords).
func questionWords(question string) []string {
	var out []string
	for _, w := range uniq(words(question)) {
		if !linkStopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// passage finds the sentence of the bundle's chunks that names the most
// of the question's content words: the chunks BM25 ranks first for the
// question, cut into sentences; ties go to the better-ranked chunk, then
// the shorter sentence. None is found (passage.found) in a bundle without
// chunks or a search index, or when no sentence names a content word.
func (t *Toolbox) passage(ctx context.Context, question string) (best passage, err error) {
	all, err := t.passages(ctx, question)
	if err != nil || len(all) == 0 {
		return best, err
	}
	return all[0], nil
}

// stemSuffixes are the endings stem takes off a word, the first that fits.
var stemSuffixes = []string{"ing", "ed", "es", "e", "s"}

// stem takes one ending of stemSuffixes off a word (words already took a
// plural's "s"), leaving three letters or more, so that a sentence's
// "opened" and "contained" name a question's "open" and "contain".
func stem(w string) string {
	for _, suf := range stemSuffixes {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// passages are the sentences of the chunks BM25 ranks first for the
// question that name any of its content words (stem: "opened" names
// "open"): the most words first,
// then the better-ranked chunk, then the shorter sentence (passage is the
// first).
func (t *Toolbox) passages(ctx context.Context, question string) ([]passage, error) {
	qw := questionWords(question)
	terms := bundle.Terms(question)
	if len(qw) == 0 || len(terms) == 0 {
		return nil, nil
	}
	hits, err := t.bm25(ctx, terms, passageDepth)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = lit(h.ID)
	}
	rows, _, err := t.rows(ctx, fmt.Sprintf(`SELECT id, text, start FROM memory.main.chunks WHERE id IN (%s)`, strings.Join(ids, ", ")), passageDepth)
	if err != nil {
		return nil, err
	}
	byID := map[string][]string{}
	for _, r := range rows {
		byID[r[0]] = r
	}
	type ranked struct {
		passage
		rank int
	}
	var all []ranked
	read := 0
	for _, h := range hits {
		r, isChunk := byID[h.ID]
		if !isChunk {
			continue
		}
		if read++; read > passageChunks {
			break
		}
		start, err := strconv.Atoi(r[2])
		if err != nil {
			return nil, fmt.Errorf("chunk %s starts at %q: %w", r[0], r[2], err)
		}
		for _, s := range sentenceSpans(r[1]) {
			text := r[1][s.Start:s.End]
			var covered []string
			sw := words(text)
			for i, w := range sw {
				sw[i] = stem(w)
			}
			for _, w := range qw {
				if slices.Contains(sw, stem(w)) {
					covered = append(covered, w)
				}
			}
			if len(covered) > 0 {
				all = append(all, ranked{passage{chunk: r[0], span: kg.Span{Start: start + s.Start, End: start + s.End}, text: text, covered: covered, context: r[1]}, read})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b ranked) int {
		if d := len(b.covered) - len(a.covered); d != 0 {
			return d
		}
		if d := a.rank - b.rank; d != 0 {
			return d
		}
		return len(a.text) - len(b.text)
	})
	out := make([]passage, len(all))
	for i, a := range all {
		out[i] = a.passage
	}
	return out, nil
}

// sentenceSpans cuts text into sentences and lines, trimmed, by byte
// offsets: a sentence ends at a line break or at ".", "!" or "?" before a
// space, a full stop not after an abbreviation (abbreviationAt); pieces shorter than minPassage bytes or longer than maxPassage
// (a table written as text) and Markdown headings are left out.
func sentenceSpans(text string) []kg.Span {
	var out []kg.Span
	add := func(start, end int) {
		for start < end && isSpace(text[start]) {
			start++
		}
		for end > start && isSpace(text[end-1]) {
			end--
		}
		if n := end - start; n >= minPassage && n <= maxPassage && text[start] != '#' && text[start] != '|' {
			out = append(out, kg.Span{Start: start, End: end})
		}
	}
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			add(start, i)
			start = i + 1
		case '.', '!', '?':
			if (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t') && (text[i] != '.' || !abbreviationAt(text, i)) {
				add(start, i+1)
				start = i + 1
			}
		}
	}
	add(start, len(text))
	return out
}

// abbreviationEnds are the words a full stop ends without ending the
// sentence ("Kestrel Alloys Ltd. supplies", "Cloudmark, Inc. (Cloudmark),
// a leader"), lower-cased.
var abbreviationEnds = map[string]bool{
	"inc": true, "ltd": true, "corp": true, "co": true, "plc": true, "llc": true, "bros": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "jr": true, "sr": true, "st": true,
	"no": true, "nos": true, "vs": true, "etc": true, "approx": true, "dept": true, "fig": true, "e.g": true, "i.e": true,
}

// abbreviationAt reports whether the full stop at i ends an abbreviation
// rather than a sentence: a word of abbreviationEnds, one capital letter
// or letters with stops between them ("J.", "U.S."), or a stop followed
// by a lower-case word.
func abbreviationAt(text string, i int) bool {
	j := i
	for j > 0 && (isASCIILetter(text[j-1]) || text[j-1] == '.') {
		j--
	}
	word := strings.ToLower(text[j:i])
	if abbreviationEnds[word] || len(word) == 1 && text[j] >= 'A' && text[j] <= 'Z' || strings.Contains(word, ".") {
		return true
	}
	k := i + 1
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	return k < len(text) && text[k] >= 'a' && text[k] <= 'z'
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// namedTableWords are the content words qw of a question that the data
// tables name as the question does: a table's or a column's name, a
// value (a sample, a value linked to the question) the question writes
// whole or shares minGroundWords words with, or a word two values of one
// column hold (the "area" of "On or near Parking Area" and "On or near
// Sports Area": a kind of value the column holds). One value that shares
// one word ("City 300" for "In which city …") does not name it.
func namedTableWords(tables []kg.Table, question string, qw []string, linked map[string][]string) []string {
	named := map[string]bool{}
	add := func(text string) {
		for _, w := range words(text) {
			named[stem(w)] = true // as passages compares words: "orders" names "ordered"
		}
	}
	all := uniq(words(question))
	for _, t := range tables {
		add(t.Name)
		for _, c := range t.Columns {
			add(c.Name)
			held := map[string]int{} // a word → the values of the column that hold it
			for _, v := range uniq(append(slices.Clone(c.Samples), linked[linkKey(t.Name, c.Name)]...)) {
				if namedWhole(question, v) || sharedWords(all, v) >= minGroundWords {
					add(v)
				}
				for _, w := range uniq(words(v)) {
					held[w]++
				}
			}
			for w, n := range held {
				if n >= 2 {
					named[stem(w)] = true // a kind of value the column holds ("… Area" of many locations)
				}
			}
		}
	}
	var out []string
	for _, w := range qw {
		if named[stem(w)] {
			out = append(out, w)
		}
	}
	return out
}

// passageAnswer answers the action model's question from a sentence of
// the bundle's documents, before the model is asked, when that sentence
// names more of the question's content words than the data tables do
// (namedTableWords: their names, their columns' names, and the values the
// question names): the action model writes only typed queries over the
// tables, so a question the documents answer and the tables do not name
// would get a query over the wrong table. The answer is the sentence
// itself, cited by its chunk and byte span, its confidence the share of
// the question's content words it names. A question that asks where a
// thing is with a place noun no table holds ("In which city is Pedal &
// Co?") takes the sentence placePassage finds, its place counted as the
// noun's word. A sentence naming less than
// minPassageShare of those words answers nothing, nor does one that does
// not write every number the question writes but years (questionNumbers:
// "Which suppliers have a rating below 4?" is not answered by "a supplier
// with a rating below 3.0 cannot …"), one whose chunk does not write a
// code the question writes (questionCodes: "QI-2025-04"), one that does not name what a
// "which" question asks for (namesWhatIsAsked), or one without a number
// of its own for a question that asks for a number (asksANumber), nor,
// for a question that asks for the first of an order (asksAnOrder), one
// that writes two values of the tables the question does not
// (sentenceValueCount: the answer and a condition beside it). done
// reports whether the question ended. A question asked for yes or no
// (yesNoQuestion) is answered only by a sentence that names every content
// word of it: "Yes", or "No" when one of the two says "not" and the other
// does not (negated), before the sentence.
func (r *run) passageAnswer(ctx context.Context) (done bool, err error) {
	best, err := r.questionPassage(ctx)
	if err != nil || !best.found() {
		return false, err
	}
	data, err := r.dataTables()
	if err != nil {
		return false, err
	}
	qw := questionWords(r.ans.Question)
	covered := len(best.covered)
	if p, ok, err := r.placePassage(ctx, data); err != nil {
		return false, err
	} else if ok {
		best, covered = p, len(p.covered)+1 // the sentence's place is the place noun's
	}
	if covered <= len(namedTableWords(data, r.ans.Question, qw, r.linked)) || float64(covered) < minPassageShare*float64(len(qw)) {
		return false, nil
	}
	if !allIn(questionNumbers(r.ans.Question), numbersIn(best.text)) {
		return false, nil // "a rating below 4" is not answered by "a rating below 3.0"
	}
	if slices.ContainsFunc(questionCodes(r.ans.Question), func(code string) bool {
		return !strings.Contains(strings.ToLower(best.context), strings.ToLower(code))
	}) {
		// A code the question writes is in the sentence's chunk: "Ana Ferreira opened this
		// incident report" answers for the report its heading names, QI-2025-04.
		return false, nil
	}
	if ok, err := r.namesWhatIsAsked(ctx, data, best.text); err != nil || !ok {
		return false, err // "Which supplier …?" is not answered by a sentence that names no supplier
	}
	if asksAnOrder(r.ans.Question) {
		if n, err := r.sentenceValueCount(ctx, data, best.text); err != nil || n >= 2 {
			return false, err // "the most expensive part at the Brno plant" answers a narrower question
		}
	}
	if asksANumber(r.ans.Question, data) && !slices.ContainsFunc(wordNumbers(best.text), func(n string) bool { return !slices.Contains(wordNumbers(r.ans.Question), n) }) {
		return false, nil // "What is the unit cost of …?" is not answered by a sentence without a number of its own
	}
	answer := best.text
	if yesNoQuestion(r.ans.Question) {
		if len(best.covered) < len(qw) {
			return false, nil // a sentence that names part of a yes-or-no question says neither
		}
		answer = yesOrNo(negated(best.text) == negated(r.ans.Question)) + ": " + best.text
	}
	span := best.span
	aa := AnswerArgs{
		Answer:     answer,
		Confidence: float64(len(best.covered)) / float64(len(qw)),
		Citations:  []Citation{{Kind: "chunk", ID: best.chunk, Span: &span}},
	}
	return r.answerWith(ctx, aa) // a chunk the answer tool cannot find: left to the model
}

// placeNouns ask where a thing is ("In which city is Pedal & Co?").
var placeNouns = []string{"city", "town", "country", "place", "location", "region", "state"}

// placeIn matches a place a sentence writes after "in" ("… a dealer in
// Lisbon, Portugal."): a capitalised word.
var placeIn = regexp.MustCompile(`\bin ([A-Z][\p{L}-]+)`)

// placePassage finds the sentence that answers where a thing is: for a
// question whose "which" or "what" noun (whNoun) is one place noun
// (placeNouns) that no data table's or column's name holds, and that
// writes whole a value linked to it (value linking: "Pedal & Co"), the
// best of the question's sentences (questionPassages) that writes every
// such value whole and a place after "in" the question does not write
// (placeIn). ok is false when there is none; passageAnswer counts the
// place noun among the words that sentence names.
func (r *run) placePassage(ctx context.Context, data []kg.Table) (p passage, ok bool, err error) {
	noun := whNoun(r.ans.Question)
	if len(noun) != 1 || !slices.Contains(placeNouns, noun[0]) {
		return p, false, nil
	}
	for _, t := range data {
		if slices.Contains(words(t.Name), noun[0]) || slices.ContainsFunc(t.Columns, func(c kg.Column) bool { return slices.Contains(words(c.Name), noun[0]) }) {
			return p, false, nil // the tables say where: a query's
		}
	}
	values := r.writtenValues()
	if len(values) == 0 {
		return p, false, nil
	}
	all, err := r.questionPassages(ctx)
	if err != nil {
		return p, false, err
	}
	p, ok = placeSentence(all, values, r.ans.Question, noun[0] == "city" || noun[0] == "town")
	return p, ok, nil
}

// placeSentence returns the first of sentences that writes every one of
// values whole and a place after "in" that the question does not write
// (placeIn); for a city (or a town) first one that writes the place
// before the larger place it lies in ("in Milan, Italy": cityIn), as
// "… resells bicycles to dealers in Italy." names a country.
func placeSentence(sentences []passage, values []string, question string, city bool) (passage, bool) {
	patterns := []*regexp.Regexp{placeIn}
	if city {
		patterns = []*regexp.Regexp{cityIn, placeIn}
	}
	for _, re := range patterns {
		for _, cand := range sentences {
			if slices.ContainsFunc(values, func(v string) bool { return !namedWhole(cand.text, v) }) {
				continue
			}
			for _, m := range re.FindAllStringSubmatch(cand.text, -1) {
				if !namedWhole(question, m[1]) {
					return cand, true
				}
			}
		}
	}
	return passage{}, false
}

// cityIn matches a place written before the larger place it lies in
// ("in Milan, Italy").
var cityIn = regexp.MustCompile(`\bin ([A-Z][\p{L}-]+), [A-Z]`)

// sentenceValueCount counts the distinct values of the data tables'
// columns that a sentence writes whole and the question does not (value
// linking over the sentence): an answer and, beside it, a condition the
// question does not set ("The 48V battery pack is the most expensive part
// at the Brno plant." for "What is the most expensive part?").
func (r *run) sentenceValueCount(ctx context.Context, data []kg.Table, sentence string) (int, error) {
	inSentence, err := r.a.tools.linkValues(ctx, data, sentence)
	if err != nil {
		return 0, err
	}
	var seen []string
	for _, vs := range inSentence {
		for _, v := range vs {
			lv := strings.ToLower(v)
			if namedWhole(sentence, v) && !namedWhole(r.ans.Question, v) && !slices.Contains(seen, lv) {
				seen = append(seen, lv)
			}
		}
	}
	return len(seen), nil
}

// namesWhatIsAsked reports whether a sentence can answer what a "which"
// or "what" question asks for: when the noun after it (whNoun), or its
// first words, names a data table (whTable: "Which supplier makes …?"),
// the sentence must write whole a value of that table the question does
// not write (a supplier's name); a noun that names no table ("In which
// city …?") asks for nothing the tables can check.
func (r *run) namesWhatIsAsked(ctx context.Context, data []kg.Table, sentence string) (bool, error) {
	if r.schema == nil {
		r.schema = selectSchema(data)
	}
	noun, name := whNoun(r.ans.Question), ""
	for k := len(noun); k > 0 && name == ""; k-- {
		name = whTable(noun[:k], r.schema) // "Which supplier makes …": supplier
	}
	if name == "" {
		return true, nil
	}
	i := slices.IndexFunc(data, func(t kg.Table) bool { return t.Name == name })
	if i < 0 {
		return true, nil
	}
	inSentence, err := r.a.tools.linkValues(ctx, data[i:i+1], sentence)
	if err != nil {
		return false, err
	}
	for _, c := range data[i].Columns {
		for _, v := range inSentence[linkKey(name, c.Name)] {
			if namedWhole(sentence, v) && !namedWhole(r.ans.Question, v) {
				return true, nil
			}
		}
	}
	return false, nil
}

// wordNumbers are the numbers text writes as words of their own ("240",
// "1,200", "3.2", "$72.3", "ten"; not the 5 of "TR5" or the 2025 of
// "QI-2025-04").
func wordNumbers(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		f = strings.TrimRight(strings.TrimLeft(f, "(\"'$€£¥-−"), ".,;:!?)\"'%")
		if n, err := strconv.ParseFloat(strings.ReplaceAll(f, ",", ""), 64); err == nil {
			out = append(out, strconv.FormatFloat(n, 'f', -1, 64))
		} else if i := slices.Index(numberWords, strings.ToLower(f)); i >= 0 {
			out = append(out, strconv.Itoa(i+1))
		}
	}
	return uniq(out)
}

// asksANumber reports whether a question asks for a number: a count
// (countsRows), "how much", or "what is the …" (or "what was the", "what
// are the") followed, before "of", by every word but a unit of a numeric
// column's name of a data table ("What is the unit cost of …?":
// unit_cost_eur).
func asksANumber(question string, tables []kg.Table) bool {
	if countsRows(question) || strings.Contains(strings.ToLower(question), "how much") {
		return true
	}
	ws := lowerWords(question)
	for i := 0; i+2 < len(ws); i++ {
		if ws[i] != "what" || ws[i+1] != "is" && ws[i+1] != "was" && ws[i+1] != "are" || ws[i+2] != "the" {
			continue
		}
		var noun []string
		for _, w := range ws[i+3:] {
			if w == "of" || w == "for" || whStops[w] {
				break
			}
			noun = append(noun, w)
		}
		nw := words(strings.Join(noun, " "))
		for _, t := range tables {
			for _, c := range t.Columns {
				cw := unitlessWords(c.Name)
				if numericType(c.Type) && len(cw) > 0 && sameWords(cw, nw) {
					return true
				}
			}
		}
	}
	return false
}

// questionPassage is passage for the run's question, looked for once.
func (r *run) questionPassage(ctx context.Context) (passage, error) {
	if r.psg == nil {
		best, err := r.a.tools.passage(ctx, r.ans.Question)
		if err != nil {
			return best, err
		}
		r.psg = &best
	}
	return *r.psg, nil
}

// questionPassages is passages for the run's question, looked for once.
func (r *run) questionPassages(ctx context.Context) ([]passage, error) {
	if r.psgs == nil {
		all, err := r.a.tools.passages(ctx, r.ans.Question)
		if err != nil {
			return nil, err
		}
		r.psgs = append([]passage{}, all...)
	}
	return r.psgs, nil
}

// maxFilterSentences bounds the sentences passageFilter reads values from.
const maxFilterSentences = 3

// passageFilter repairs the query of a question that names the rows it
// aggregates only through what a document says of them: "How many parts
// does the supplier on probation supply?" counted every part, and a
// sentence says "Velora Cycles placed Kestrel Alloys on supplier
// probation". When a typed query aggregates rows (or lists them for a
// question that counts: countsRows), filters on no value the question or
// an earlier result wrote (groundedValue), and the question writes no
// value its table holds, kgforge reads the question's sentences
// (questionPassages: up to maxFilterSentences naming two of its content
// words or more) for a value of a column the query's table offers (its
// own or one a join away; value linking over the sentence) that the
// question does not write and that reads as a name (properValue), and runs the query filtered on it alone (=),
// a count for a listing, as a step of its own (Step.By) — the longest
// value of the best sentence first, for a question that speaks of one
// row of the value's table or column as "the …" (namesOneRow), a value
// whose sentence names a word of the question besides the column's, the
// table's and the value's (linkWords), and a result with rows that match (rerunMatching).
// filtered is that query, nil when none.
func (r *run) passageFilter(ctx context.Context, args json.RawMessage, out string) (filtered json.RawMessage, result string, err error) {
	_, rows, isRows := ResultRows(out)
	if !isRows {
		return nil, "", nil
	}
	c, t := r.queryTable(args)
	if t == nil || len(c.GroupBy) > 0 || c.Having != nil || c.Aggregate == nil && !countsRows(r.ans.Question) {
		return nil, "", nil
	}
	for _, w := range c.Where {
		if r.groundedValue(w.Value) && !noRowsMatched(c, rows) {
			return nil, "", nil
		}
	}
	if len(r.namedValues(c.Table, t.columns)) > 0 {
		return nil, "", nil
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	if c.Aggregate == nil {
		asCount(m, t.columns[0])
	}
	return r.filterOnSentenceNames(ctx, m, c.Table, t.columns, nil, func(p passage, v linkedFilter) bool {
		return namesOneRow(r.ans.Question, c.Table, v.column) && len(linkWords(p.covered, []string{v.column}, c.Table, v.value)) > 0
	})
}

// filterOnSentenceNames runs the typed query m filtered (=) on one value
// a sentence names, alone, as a step of kgforge's own (Step.By): over
// the question's sentences a filter may take a value from
// (filterSentences) that reads accepts (every one when nil), the values
// of the columns table offers that the sentence writes and the question
// does not (sentenceNames, the longest first) that fits accepts, taking
// the first result with rows that match (rerunMatching). passageFilter,
// bridgeFilter and describedFilter differ only in which sentences and
// values they take. filtered is that query, nil when none.
func (r *run) filterOnSentenceNames(ctx context.Context, m map[string]any, table string, columns []string, reads func(passage) bool, fits func(passage, linkedFilter) bool) (filtered json.RawMessage, result string, err error) {
	sentences, data, err := r.filterSentences(ctx)
	if err != nil {
		return nil, "", err
	}
	for _, p := range sentences {
		if reads != nil && !reads(p) {
			continue
		}
		values, err := r.sentenceNames(ctx, data, p.text, table, columns)
		if err != nil {
			return nil, "", err
		}
		for _, v := range values {
			if !fits(p, v) {
				continue
			}
			m["where"] = []map[string]string{{"column": v.column, "op": "=", "value": v.value}}
			if raw, res, err := r.rerunMatching(ctx, m); err != nil || raw != nil {
				return raw, res, err
			}
		}
	}
	return nil, "", nil
}

// genericColumnWords name no thing a question can speak of as "the …".
var genericColumnWords = []string{"name", "id", "code", "number", "type", "title"}

// namesOneRow reports whether a question speaks of one row of a column's
// table as "the" and a singular noun of its name or of the column's
// ("the supplier on probation" for suppliers.name, "the product affected
// by …" for orders.product; not "the suppliers", nor "a supplier").
func namesOneRow(question, table, column string) bool {
	tbl := table
	if t, _, joined := strings.Cut(column, "."); joined {
		tbl = t
	}
	nouns := words(tbl)
	for _, w := range columnWords(column) {
		if !slices.Contains(genericColumnWords, w) {
			nouns = append(nouns, w)
		}
	}
	ws := lowerWords(question)
	for i := 0; i+1 < len(ws); i++ {
		next := ws[i+1]
		if ws[i] != "the" || strings.HasSuffix(next, "s") && !strings.HasSuffix(next, "ss") {
			continue
		}
		if nw := words(next); len(nw) == 1 && slices.Contains(nouns, nw[0]) {
			return true
		}
	}
	return false
}

// properValue reports whether a value reads as the name of one thing: it
// holds a capital letter or a digit ("Kestrel Alloys", "Trail 500"; not
// the category "frames", which a rule about every frame writes).
func properValue(v string) bool {
	return strings.IndexFunc(v, func(r rune) bool { return unicode.IsUpper(r) || unicode.IsDigit(r) }) >= 0
}

// passageLookup repairs the query of a question that names a row only
// through what a document says of it ("the unit cost of the part used
// only in the Volt E8", where a sentence says which part): when the
// question's sentence (questionPassage) writes whole a value of a text
// column of a data table that the question does not write, and the
// question names other columns of that table by every word of their names
// (namedColumns; not a column named by the table's own noun), kgforge
// looks those cells up in the row of that value, as a step of its own
// (Step.By), and takes the result when it is one row (the value names a
// row; "Brno", the plant of many, does not): the longest such value
// first. The sentence must name at least minLinkWords words of the
// question besides the words of those columns, the table's name and the
// value (linkWords: "used", "only", "volt", "e8"), the link it makes between
// the question and the row; a sentence that names only what the question
// asks for ("the plant of every part" and "the most expensive part at the
// Brno plant") links nothing. It repairs the queries lookupCells does
// (lookupable). looked is the query kgforge ran, nil
// when none; result is its result.
func (r *run) passageLookup(ctx context.Context, args json.RawMessage, out string) (looked json.RawMessage, result string, err error) {
	if _, columns := r.lookupable(args, out); columns == nil {
		return nil, "", nil
	}
	question := r.ans.Question
	best, err := r.questionPassage(ctx)
	if err != nil || !best.found() {
		return nil, "", err
	}
	data, err := r.dataTables()
	if err != nil {
		return nil, "", err
	}
	inSentence, err := r.a.tools.linkValues(ctx, data, best.text)
	if err != nil {
		return nil, "", err
	}
	type cell struct{ table, column, value string }
	var values []cell
	for _, t := range data {
		for _, col := range t.Columns {
			for _, v := range inSentence[linkKey(t.Name, col.Name)] {
				if namedWhole(best.text, v) && !namedWhole(question, v) {
					values = append(values, cell{t.Name, col.Name, v})
				}
			}
		}
	}
	slices.SortStableFunc(values, func(a, b cell) int { return len(b.value) - len(a.value) })
	for _, v := range values {
		ti := slices.IndexFunc(data, func(t kg.Table) bool { return t.Name == v.table })
		own := make([]string, len(data[ti].Columns))
		for i, col := range data[ti].Columns {
			own[i] = col.Name
		}
		if len(r.mentionedValues(v.table, own)) > 0 {
			continue // the question names a row of the table itself
		}
		tableWords := uniq(words(v.table))
		var cols []string
		for _, col := range namedColumns(question, own) {
			if col != v.column && !allIn(columnWords(col), tableWords) {
				cols = append(cols, col)
			}
		}
		if len(cols) == 0 || len(linkWords(best.covered, cols, v.table, v.value)) < minLinkWords {
			continue
		}
		raw, err := json.Marshal(map[string]any{
			"table": v.table, "columns": cols,
			"where": []map[string]string{{"column": v.column, "op": "=", "value": v.value}},
		})
		if err != nil {
			return nil, "", err
		}
		if looked, result, err = r.rerunIf(ctx, raw, func(rows [][]string) bool { return len(rows) == 1 }); err != nil || looked != nil {
			return looked, result, err
		}
	}
	return nil, "", nil
}

// minLinkWords is the fewest words of the question a sentence must link
// to a row (passageLookup).
const minLinkWords = 2

// linkWords are the covered words of the question that are not words of
// the columns, of the table's name or of the value.
func linkWords(covered, cols []string, table, value string) []string {
	own := append(words(table), words(value)...)
	for _, c := range cols {
		own = append(own, columnWords(c)...)
	}
	var out []string
	for _, w := range covered {
		if !slices.Contains(own, w) {
			out = append(out, w)
		}
	}
	return out
}

// numberToken is a number as a text writes it: digits, with thousands
// separators and a decimal point inside.
var numberToken = regexp.MustCompile(`\d(?:[\d,.]*\d)?`)

// numbersIn returns the numbers a text writes, each as its value reads
// ("1,200" is 1200, "3.0" is 3, "ten" is 10: numberWords).
func numbersIn(text string) []string {
	var out []string
	for _, n := range numberToken.FindAllString(text, -1) {
		n = strings.ReplaceAll(n, ",", "")
		if f, err := strconv.ParseFloat(n, 64); err == nil {
			n = strconv.FormatFloat(f, 'f', -1, 64)
		}
		out = append(out, n)
	}
	for _, w := range lowerWords(text) {
		if i := slices.Index(numberWords, w); i >= 0 {
			out = append(out, strconv.Itoa(i+1))
		}
	}
	return uniq(out)
}

// questionCodes are the words of a question that write letters and
// digits together: codes and ids ("QI-2025-04", "P012"), trimmed of
// punctuation around them.
func questionCodes(question string) []string {
	var out []string
	for _, f := range strings.Fields(question) {
		f = strings.Trim(f, ".,;:?!\"'()[]")
		if strings.ContainsFunc(f, unicode.IsLetter) && strings.ContainsFunc(f, unicode.IsDigit) {
			out = append(out, f)
		}
	}
	return out
}

// questionNumbers are the numbers of a question (numbersIn) a sentence
// that answers it must write: a year (1900 to 2099) is left out, since a
// report's sentence often speaks of its own year without writing it, and
// so are the digits of a code (questionCodes: "QI-2025-04"), which the
// sentence's chunk must write whole instead (passageAnswer).
func questionNumbers(question string) []string {
	for _, code := range questionCodes(question) {
		question = strings.ReplaceAll(question, code, " ")
	}
	var out []string
	for _, n := range numbersIn(question) {
		if y, err := strconv.Atoi(n); err == nil && y >= 1900 && y <= 2099 {
			continue
		}
		out = append(out, n)
	}
	return out
}

// bridgeFilter repairs a count of the table that holds the value a
// question writes where the question counts the rows of another that a
// document ties to that value: "How many orders were placed for the
// bicycle that uses the 48V battery pack?" counted the parts named "48V
// battery pack", and a sentence says "The Volt E8 uses the 48V battery
// pack.". When a typed query counts rows (count, no group) filtered on a
// value the question writes of its table (namedValues), and what the
// question counts (countNoun) names another data table (whTable) none of
// whose columns (its own or a join away) holds a value the question
// writes, kgforge reads the question's sentences (questionPassages: up to
// maxFilterSentences naming two of its content words or more) that write
// that value whole, for a value of a column the counted table offers that
// the question does not write and that reads as a name (properValue), and
// counts the counted table's rows filtered on it (=) — the longest value
// of the best sentence first — as a step of its own (Step.By), taking the
// first count above 0 (rerunMatching). bridged is that query, nil when
// none.
func (r *run) bridgeFilter(ctx context.Context, args json.RawMessage, out string) (bridged json.RawMessage, result string, err error) {
	if _, _, isRows := ResultRows(out); !isRows {
		return nil, "", nil
	}
	c, t := r.queryTable(args)
	if t == nil || c.Aggregate == nil || c.Aggregate.Fn != "count" || len(c.GroupBy) > 0 || len(c.Where) == 0 {
		return nil, "", nil
	}
	target := whTable(countNoun(r.ans.Question), r.schema)
	tt := r.schemaTable(target)
	if target == "" || target == c.Table || tt == nil || len(tt.columns) == 0 || len(r.namedValues(target, tt.columns)) > 0 {
		return nil, "", nil
	}
	var bridges []string
	for _, w := range c.Where {
		if w.Op == "=" && slices.ContainsFunc(r.namedValues(c.Table, t.columns), func(n linkedFilter) bool { return strings.EqualFold(n.value, w.Value) }) {
			bridges = append(bridges, w.Value)
		}
	}
	if len(bridges) == 0 {
		return nil, "", nil
	}
	m := map[string]any{"table": target, "aggregate": map[string]any{"fn": "count", "column": tt.columns[0]}}
	return r.filterOnSentenceNames(ctx, m, target, tt.columns, func(p passage) bool {
		return slices.ContainsFunc(bridges, func(b string) bool { return namedWhole(p.text, b) })
	}, func(passage, linkedFilter) bool { return true })
}

// sentenceNames returns the values a sentence writes whole of the columns
// a typed query's table offers (its own or a join away; value linking
// over the sentence) that the question does not write and that read as a
// name (properValue), the longest first.
func (r *run) sentenceNames(ctx context.Context, data []kg.Table, sentence, table string, columns []string) ([]linkedFilter, error) {
	inSentence, err := r.a.tools.linkValues(ctx, data, sentence)
	if err != nil {
		return nil, err
	}
	var values []linkedFilter
	for _, col := range columns {
		tbl, name := table, col
		if a, b, joined := strings.Cut(col, "."); joined {
			tbl, name = a, b
		}
		for _, v := range inSentence[linkKey(tbl, name)] {
			if namedWhole(sentence, v) && !namedWhole(r.ans.Question, v) && properValue(v) {
				values = append(values, linkedFilter{col, v})
			}
		}
	}
	slices.SortStableFunc(values, func(a, b linkedFilter) int { return len(b.value) - len(a.value) })
	return values, nil
}

// filterSentences returns the question's sentences a filter may take a
// value from (questionPassages: up to maxFilterSentences, each naming
// minGroundWords of its content words or more) and the bundle's data
// tables.
func (r *run) filterSentences(ctx context.Context) ([]passage, []kg.Table, error) {
	all, err := r.questionPassages(ctx)
	if err != nil {
		return nil, nil, err
	}
	data, err := r.dataTables()
	if err != nil {
		return nil, nil, err
	}
	var out []passage
	for _, p := range all[:min(len(all), maxFilterSentences)] {
		if len(p.covered) < minGroundWords {
			break
		}
		out = append(out, p)
	}
	return out, data, nil
}

// describedFilter repairs the query of a question that names a row by
// what a document says it is: "How many orders did the largest customer
// of the Brno plant place?" counted the Brno plant's orders (18), and a
// sentence says "Urbanmove Rentals is the largest customer of the Brno
// plant." When a typed query without groups filters only on values the
// question writes, none on the row's own name or key (rowLabel), and the
// question speaks of one row as "the …" and a noun of a column's name or
// of its table, a few words between (describedRow: "the largest
// customer"), on a column of the table's own that the query does not
// filter and of which the question writes no value, kgforge reads
// the question's sentences (filterSentences) that write every filter's
// value whole and link the row by two words of the question besides the
// column's, the table's and the value's (linkWords), for a value of that
// column that reads as a name (sentenceNames), and runs the query
// filtered on it alone (=), as a step of its own (Step.By): the
// filters were words of the description. The longest value of the best
// sentence first; a result with rows that match (rerunMatching).
// filtered is that query, nil when none.
func (r *run) describedFilter(ctx context.Context, args json.RawMessage, out string) (filtered json.RawMessage, result string, err error) {
	if _, _, isRows := ResultRows(out); !isRows {
		return nil, "", nil
	}
	c, t := r.queryTable(args)
	if t == nil || len(c.Where) == 0 || len(c.GroupBy) > 0 || c.Having != nil {
		return nil, "", nil
	}
	onColumn, label := map[string]bool{}, r.rowLabel(c.Table)
	for _, w := range c.Where {
		if w.Op != "=" || !namedWhole(r.ans.Question, w.Value) || w.Column == label {
			return nil, "", nil // a filter on the row's own name names it already
		}
		onColumn[w.Column] = true
	}
	named := map[string]bool{}
	for _, n := range r.namedValues(c.Table, t.columns) {
		named[n.column] = true
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil, "", nil
	}
	return r.filterOnSentenceNames(ctx, m, c.Table, t.columns, func(p passage) bool {
		for _, w := range c.Where {
			if !namedWhole(p.text, w.Value) {
				return false
			}
		}
		return true
	}, func(p passage, v linkedFilter) bool {
		return !strings.Contains(v.column, ".") && !onColumn[v.column] && !named[v.column] && describedRow(r.ans.Question, c.Table, v.column) && len(linkWords(p.covered, []string{v.column}, c.Table, v.value)) >= minLinkWords
	})
}

// maxDescribedWords is how many words may stand between "the" and the
// noun of a row the question describes ("the largest customer", "the
// only German supplier").
const maxDescribedWords = 2

// describedRow reports whether a question speaks of one row of a
// column's table as "the", up to maxDescribedWords words, and a singular
// noun of the table's name or of the column's (namesOneRow, with words
// between: "the largest customer" for orders.customer).
func describedRow(question, table, column string) bool {
	fields := strings.Fields(question)
	for i, w := range fields {
		if !strings.EqualFold(w, "the") {
			continue
		}
		rest := fields[i:]
		for k := 0; k <= maxDescribedWords && k+1 < len(rest); k++ {
			if namesOneRow("the "+rest[k+1], table, column) && !slices.ContainsFunc(rest[1:k+1], func(x string) bool { return strings.EqualFold(x, "the") }) {
				return true
			}
		}
	}
	return false
}
