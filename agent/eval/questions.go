package eval

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// Kind says how a gold answer is compared with an agent's.
type Kind string

// The kinds of gold answers.
const (
	KindNumber  Kind = "number"  // one number; rounding tolerance, or Tolerance
	KindPercent Kind = "percent" // a percentage; 0.25 and 25 are the same answer
	KindBool    Kind = "bool"    // yes or no
	KindList    Kind = "list"    // a set of names; order and case do not count
	KindTable   Kind = "table"   // rows of cells; scored by the recall of gold rows
	KindText    Kind = "text"    // one name or phrase (or one of Aliases)
)

var kinds = []Kind{KindNumber, KindPercent, KindBool, KindList, KindTable, KindText}

// Question is one question with its gold answer.
type Question struct {
	ID       string `yaml:"id" json:"id"`
	Question string `yaml:"question" json:"question"`
	Kind     Kind   `yaml:"kind" json:"kind"`
	// Answer is the gold answer: a number, a boolean, a string, a list of
	// strings, or a list of rows (lists of cells), by Kind.
	Answer any `yaml:"answer" json:"answer"`
	// Tolerance is the absolute difference a number or percent may have
	// from the gold one; 0 means the rounding tolerance (see Score).
	Tolerance float64 `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	// Scale is the unit a gold number is given in (thousand, million,
	// billion): an answer in units or in the scale both count.
	Scale string `yaml:"scale,omitempty" json:"scale,omitempty"`
	// MinRecall is the share of gold rows a table answer must name to be
	// correct; 0 means all of them.
	MinRecall float64  `yaml:"min_recall,omitempty" json:"min_recall,omitempty"`
	Aliases   []string `yaml:"aliases,omitempty" json:"aliases,omitempty"` // text: other accepted answers
	SQL       string   `yaml:"sql,omitempty" json:"sql,omitempty"`         // the gold SQL that produced Answer, if any
	// Needs names what an answer rests on (table, document, graph), for
	// the report's break-down; free words.
	Needs []string `yaml:"needs,omitempty" json:"needs,omitempty"`

	gold gold
}

// gold is Answer decoded by Kind.
type gold struct {
	number float64
	truth  bool
	text   string
	items  []string
	rows   [][]string
}

// Set is a question file.
type Set struct {
	Name      string     `yaml:"name"`
	Questions []Question `yaml:"questions"`
}

// ErrBadQuestions marks a question file that cannot be used.
var ErrBadQuestions = errors.New("bad question file")

// LoadQuestions reads and checks a question file (YAML: name, questions).
// Every problem is reported at once, each naming the question and field.
func LoadQuestions(path string) (*Set, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	var s Set
	if err := yaml.NewDecoder(bytes.NewReader(raw), yaml.Strict()).Decode(&s); err != nil {
		return nil, fmt.Errorf("%w %s: %s", ErrBadQuestions, path, yaml.FormatError(err, false, true))
	}
	if err := s.Prepare(); err != nil {
		return nil, fmt.Errorf("%w %s:\n%w", ErrBadQuestions, path, err)
	}
	return &s, nil
}

// Prepare checks every question and decodes its gold answer; the harness
// calls it on sets built in code too. It returns every problem at once.
func (s *Set) Prepare() error {
	if len(s.Questions) == 0 {
		return errors.New("no questions")
	}
	var errs []error
	seen := map[string]bool{}
	for i := range s.Questions {
		q := &s.Questions[i]
		if q.ID == "" {
			q.ID = fmt.Sprintf("#%d", i+1)
			errs = append(errs, fmt.Errorf("question %s: id is empty", q.ID))
		}
		if seen[q.ID] {
			errs = append(errs, fmt.Errorf("question %s: id is used twice", q.ID))
		}
		seen[q.ID] = true
		if err := q.Prepare(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Prepare checks one question and decodes its gold answer.
func (q *Question) Prepare() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("question %s: %s: %s", q.ID, field, fmt.Sprintf(format, a...)))
	}
	if strings.TrimSpace(q.Question) == "" {
		bad("question", "is empty")
	}
	if q.Tolerance < 0 || math.IsNaN(q.Tolerance) {
		bad("tolerance", "%v: must be 0 or more", q.Tolerance)
	}
	if q.MinRecall < 0 || q.MinRecall > 1 {
		bad("min_recall", "%v: must be between 0 and 1", q.MinRecall)
	}
	if _, ok := scales[q.Scale]; !ok {
		bad("scale", "%q: must be empty, thousand, million or billion", q.Scale)
	}
	if err := q.decodeGold(); err != nil {
		bad("answer", "%v", err)
	}
	return errors.Join(errs...)
}

var scales = map[string]float64{"": 1, "thousand": 1e3, "million": 1e6, "billion": 1e9}

func (q *Question) decodeGold() error {
	var err error
	switch q.Kind {
	case KindNumber, KindPercent:
		q.gold.number, err = numberOf(q.Answer)
	case KindBool:
		q.gold.truth, err = boolOf(q.Answer)
	case KindText:
		q.gold.text, err = scalarText(q.Answer)
	case KindList:
		q.gold.items, err = listOf(q.Answer)
	case KindTable:
		q.gold.rows, err = rowsOf(q.Answer)
	default:
		return fmt.Errorf("kind %q: must be one of %v", q.Kind, kinds)
	}
	return err
}

func numberOf(v any) (float64, error) {
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		if n, ok := parseNumber(x); ok {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%v: a %s answer is a number", v, KindNumber)
}

func boolOf(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, ok := truthOf(x); ok {
			return b, nil
		}
	}
	return false, fmt.Errorf("%v: a bool answer is true or false", v)
}

func scalarText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return "", errors.New("is empty")
		}
		return x, nil
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(x), nil
	}
	return "", fmt.Errorf("%v: a text answer is one string", v)
}

func listOf(v any) ([]string, error) {
	var out []string
	switch x := v.(type) {
	case []string:
		out = x
	case []any:
		for _, e := range x {
			s, err := scalarText(e)
			if err != nil {
				return nil, fmt.Errorf("item %v: %w", e, err)
			}
			out = append(out, s)
		}
	default:
		return nil, fmt.Errorf("%v: a list answer is a list of strings", v)
	}
	if len(out) == 0 {
		return nil, errors.New("the list is empty")
	}
	return out, nil
}

func rowsOf(v any) ([][]string, error) {
	var out [][]string
	switch x := v.(type) {
	case [][]string:
		out = x
	case []any:
		for i, r := range x {
			row, err := listOf(r)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", i+1, err)
			}
			out = append(out, row)
		}
	default:
		return nil, fmt.Errorf("%v: a table answer is a list of rows, each a list of cells", v)
	}
	if len(out) == 0 {
		return nil, errors.New("the table has no rows")
	}
	return out, nil
}

// parseNumber reads s as one number, allowing thousands separators, a
// leading currency sign and a trailing percent sign.
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "$€£")
	s = strings.TrimSpace(strings.TrimSuffix(s, "%"))
	if thousands.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, false
	}
	return n, true
}

// Sample returns a set of n questions of s drawn with seed, in the order
// of s; all of s when n is 0 or not less than its size.
func (s *Set) Sample(n int, seed uint64) *Set {
	if n <= 0 || n >= len(s.Questions) {
		return s
	}
	rng := rand.New(rand.NewPCG(seed, 3)) //nolint:gosec // sampling, not secrets
	pick := rng.Perm(len(s.Questions))[:n]
	slices.Sort(pick)
	out := &Set{Name: s.Name}
	for _, i := range pick {
		out.Questions = append(out.Questions, s.Questions[i])
	}
	return out
}
