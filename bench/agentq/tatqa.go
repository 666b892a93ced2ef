package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"kgforge/agent/eval"
)

// tatDoc is one TAT-QA excerpt: a table, its paragraphs, its questions.
type tatDoc struct {
	Table struct {
		UID   string     `json:"uid"`
		Table [][]string `json:"table"`
	} `json:"table"`
	Paragraphs []struct {
		Order int    `json:"order"`
		Text  string `json:"text"`
	} `json:"paragraphs"`
	Questions []struct {
		UID        string `json:"uid"`
		Question   string `json:"question"`
		Answer     any    `json:"answer"`
		AnswerType string `json:"answer_type"`
		AnswerFrom string `json:"answer_from"`
		Scale      string `json:"scale"`
	} `json:"questions"`
}

// sampleTATQA takes documents in a seeded order, at most -per-doc
// questions of each, until -n questions; each document becomes a
// directory with doc.md (the paragraphs) and table.csv.
func sampleTATQA(o options) (*set, error) {
	raw, err := os.ReadFile(filepath.Join(o.data, "tat-qa", "tatqa_dataset_dev.json"))
	if err != nil {
		return nil, err
	}
	var docs []tatDoc
	if err := json.Unmarshal(raw, &docs); err != nil {
		return nil, fmt.Errorf("read TAT-QA: %w", err)
	}
	rng := rand.New(rand.NewPCG(o.seed, 1)) //nolint:gosec // sampling, not secrets
	s := &set{name: "tatqa", skipped: map[string]int{}}
	for _, i := range rng.Perm(len(docs)) {
		if len(s.items) >= o.n {
			break
		}
		d := docs[i]
		src := filepath.Join(o.work, "tatqa", d.Table.UID)
		if err := writeTATDoc(src, d); err != nil {
			return nil, err
		}
		taken := 0
		for _, tq := range d.Questions {
			if taken == o.perDoc || len(s.items) >= o.n {
				break
			}
			q, reason := tatQuestion(tq.UID, tq.Question, tq.Answer, tq.AnswerType, tq.Scale)
			if reason != "" {
				s.skipped[reason]++
				continue
			}
			q.Needs = []string{tatNeeds[tq.AnswerFrom]}
			s.items = append(s.items, item{src: src, q: q})
			taken++
		}
	}
	return s, nil
}

var tatNeeds = map[string]string{"table": "table", "text": "document", "table-text": "document+table"}

// tatQuestion turns a TAT-QA question into a harness question: arithmetic
// and count answers are numbers (percent when the scale is percent), one
// span is a number when it reads as one, else text, and several spans are
// a list. reason says why a question was left out.
func tatQuestion(id, question string, answer any, typ, scale string) (eval.Question, string) {
	q := eval.Question{ID: "tatqa-" + id, Question: question}
	if scale == "percent" {
		q.Kind = eval.KindPercent
	} else {
		q.Kind, q.Scale = eval.KindNumber, scale
	}
	switch typ {
	case "arithmetic", "count":
		n, ok := tatNumber(answer)
		if !ok {
			return q, "answer not a number"
		}
		q.Answer = n
	case "span", "multi-span":
		spans, ok := answer.([]any)
		if !ok || len(spans) == 0 {
			return q, "no span"
		}
		if len(spans) == 1 {
			if n, ok := tatNumber(spans[0]); ok {
				q.Answer = n
				break
			}
			q.Kind, q.Scale, q.Answer = eval.KindText, "", fmt.Sprint(spans[0])
			break
		}
		q.Kind, q.Scale, q.Answer = eval.KindList, "", spans
	default:
		return q, "answer type " + typ
	}
	return q, ""
}

var tatClean = strings.NewReplacer("$", "", ",", "", "%", "", " ", "", "\u00a0", "")

// tatNumber reads a TAT-QA number: 1,234.5, $ 12, (34) for -34, 5%.
func tatNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		s := tatClean.Replace(strings.TrimSpace(x))
		neg := strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")")
		n, err := strconv.ParseFloat(strings.Trim(s, "()"), 64)
		if err != nil {
			return 0, false
		}
		if neg {
			n = -n
		}
		return n, true
	}
	return 0, false
}

var (
	numberCell = regexp.MustCompile(`^[-$(\s]*[\d,]+(\.\d+)?[)%]?$`)
	yearCell   = regexp.MustCompile(`^(19|20)\d\d$`)
)

// writeTATDoc writes a document's paragraphs as doc.md and its table as
// table.csv: the header rows (those before the first row with a number
// other than a year) joined per column into one header.
func writeTATDoc(dir string, d tatDoc) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	md.WriteString("# Report excerpt\n\n")
	for _, p := range d.Paragraphs {
		md.WriteString(strings.TrimSpace(p.Text) + "\n\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "doc.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	rows := d.Table.Table
	head := 0
	for head < len(rows) && !hasNumber(rows[head]) {
		head++
	}
	if head == len(rows) {
		head = 1
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	header := make([]string, width)
	seen := map[string]int{}
	for j := range header {
		var parts []string
		for _, r := range rows[:head] {
			if j < len(r) && strings.TrimSpace(r[j]) != "" {
				parts = append(parts, strings.TrimSpace(r[j]))
			}
		}
		h := strings.Join(parts, " ")
		if h == "" {
			h = "item"
			if j > 0 {
				h = fmt.Sprintf("col%d", j+1)
			}
		}
		if seen[h]++; seen[h] > 1 {
			h = fmt.Sprintf("%s %d", h, seen[h])
		}
		header[j] = h
	}
	f, err := os.Create(filepath.Join(dir, "table.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(header)
	for _, r := range rows[head:] {
		_ = w.Write(append(r, make([]string, width-len(r))...))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func hasNumber(row []string) bool {
	for j, c := range row {
		c = strings.TrimSpace(c)
		if j > 0 && numberCell.MatchString(c) && !yearCell.MatchString(c) {
			return true
		}
	}
	return false
}
