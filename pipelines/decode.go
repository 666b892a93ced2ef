package pipelines

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// decode fills p from pipeline YAML in three passes over its syntax tree,
// so that one run names every problem: ${VAR} expansion of string values
// (Expand), a check of every key against the Pipeline structs (an unknown
// field is an error naming its path), and the typed decode. lookup reads
// the environment. typed reports whether the typed decode succeeded, so
// that Validate may look at the result.
func decode(raw []byte, p *Pipeline, lookup func(string) (string, bool)) (typed bool, err error) {
	file, err := parser.ParseBytes(raw, 0)
	if err != nil {
		return false, fmt.Errorf("decode: %s", yaml.FormatError(err, false, true))
	}
	var body ast.Node
	for i, doc := range file.Docs {
		switch {
		case doc.Body == nil:
		case body != nil:
			return false, fmt.Errorf("decode: document %d: a pipeline file holds one YAML document", i+1)
		default:
			body = doc.Body
		}
	}
	if body == nil {
		return true, nil
	}
	w := &walker{lookup: lookup, written: map[string]string{}}
	w.walk(body, reflect.TypeOf(*p), "")
	p.written = w.written
	var opts []yaml.DecodeOption
	if len(w.errs) == 0 {
		opts = append(opts, yaml.Strict()) // the walk found no unknown field; this is the net under it
	}
	if err := yaml.NodeToValue(body, p, opts...); err != nil {
		return false, errors.Join(append(w.errs, fmt.Errorf("decode: %s", yaml.FormatError(err, false, true)))...)
	}
	return true, errors.Join(w.errs...)
}

// walker visits a pipeline's syntax tree beside the Go type its part
// decodes into (nil where unknown), expanding strings and checking keys.
type walker struct {
	lookup  func(string) (string, bool)
	errs    []error
	written map[string]string // field path → its value as written, for each value that names a variable
}

func (w *walker) bad(field string, value any, rule string) {
	w.errs = append(w.errs, &FieldError{Field: field, Value: value, Rule: rule})
}

func (w *walker) walk(n ast.Node, t reflect.Type, path string) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, mv := range n.Values {
			w.pair(mv, t, path)
		}
	case *ast.MappingValueNode:
		w.pair(n, t, path)
	case *ast.SequenceNode:
		var elem reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			elem = t.Elem()
		}
		for i, v := range n.Values {
			w.walk(v, elem, fmt.Sprintf("%s[%d]", path, i))
		}
	case *ast.TagNode:
		w.walk(n.Value, t, path)
	case *ast.AnchorNode:
		w.walk(n.Value, t, path)
	case *ast.StringNode:
		w.expand(n, t, path)
	case *ast.LiteralNode:
		w.expand(n.Value, t, path)
	}
}

// pair checks one key against t and walks its value; keys are never
// expanded.
func (w *walker) pair(mv *ast.MappingValueNode, t reflect.Type, path string) {
	key := keyText(mv.Key)
	field := key
	if path != "" {
		field = path + "." + key
	}
	if key == "<<" {
		w.walk(mv.Value, t, path) // a merge key adds its mapping's keys here
		return
	}
	var vt reflect.Type
	switch {
	case t == nil:
	case t.Kind() == reflect.Struct:
		f, ok := fieldByTag(t, key)
		if !ok {
			w.bad(field, key, fmt.Sprintf("unknown field %q; %s has %s", key, orTop(path), strings.Join(yamlFields(t), ", ")))
			return
		}
		vt = f.Type
	case t.Kind() == reflect.Map:
		vt = t.Elem()
	}
	w.walk(mv.Value, vt, field)
}

func orTop(path string) string {
	if path == "" {
		return "a pipeline"
	}
	return path
}

func keyText(k ast.MapKeyNode) string {
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	if tk := k.GetToken(); tk != nil {
		return tk.Value
	}
	return k.String()
}

// fieldByTag finds the field of struct t whose yaml tag names key.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if yamlName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// yamlName is the key a field decodes from, or "" for one that is never
// read from YAML.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// yamlFields lists the keys struct t decodes, sorted.
func yamlFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if n := yamlName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// durationType is the one type decoded from a string whose decoding
// error quotes the string: a value from the environment is checked here.
var durationType = reflect.TypeFor[time.Duration]()

// expand expands the string s, which decodes into t (nil where unknown).
func (w *walker) expand(s *ast.StringNode, t reflect.Type, path string) {
	named := false
	v, err := Expand(s.Value, func(name string) (string, bool) {
		named = true
		return w.lookup(name)
	})
	switch {
	case err != nil:
		w.bad(path, strconv.Quote(s.Value), err.Error())
	case named && storedAsWritten(path):
		w.bad(path, strconv.Quote(s.Value), "must be written out, not taken from the environment: it is stored in every bundle's manifest and run report (write $$ for a literal $)")
	case named && t == durationType:
		if _, err := time.ParseDuration(v); err != nil {
			w.bad(path, strconv.Quote(s.Value), "is not a duration (like 90s or 10m)")
			v = "0s" // the error above says it all; the typed decode would quote the value
		}
		w.written[path] = s.Value
		s.Value = v
	case named:
		w.written[path] = s.Value
		s.Value = v
	default:
		s.Value = v
	}
}

// storedNames are the fields a build stores in its bundle's manifest and
// run report as they are: the pipeline's and its sources' names, which
// identify what the bundle was made of. A ${VAR} in them is refused, so
// that no value of the environment reaches a bundle through them.
var storedNames = regexp.MustCompile(`^(name|sources\[\d+\]\.name)$`)

func storedAsWritten(path string) bool { return storedNames.MatchString(path) }

// Expand replaces ${VAR} in s with the value of the environment variable
// VAR, and ${VAR:-default} with default, itself expanded (so it may hold
// another ${…}), when VAR is unset or empty; $$ is one $. A $ followed by anything else stays as it is, so a regular
// expression's $ needs no escape. An unset VAR without a default, an
// unclosed ${ and a name that is not letters, digits and _ are errors.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) || (s[i+1] != '$' && s[i+1] != '{') {
			out.WriteByte(s[i])
			continue
		}
		if s[i+1] == '$' {
			out.WriteByte('$')
			i++
			continue
		}
		end := closing(s, i+2)
		if end < 0 {
			return "", fmt.Errorf("unclosed ${ at byte %d (write $$ for a literal $)", i)
		}
		v, err := variable(s[i+2:end], lookup)
		if err != nil {
			return "", err
		}
		out.WriteString(v)
		i = end
	}
	return out.String(), nil
}

// closing returns the index of the } that closes the ${ whose inside
// starts at start, or -1: a ${ inside opens one more, $$ is one $.
func closing(s string, start int) int {
	depth := 0
	for j := start; j < len(s); j++ {
		switch {
		case s[j] == '$' && j+1 < len(s) && (s[j+1] == '$' || s[j+1] == '{'):
			if s[j+1] == '{' {
				depth++
			}
			j++
		case s[j] == '}' && depth == 0:
			return j
		case s[j] == '}':
			depth--
		}
	}
	return -1
}

// variable expands the inside of one ${…}.
func variable(inner string, lookup func(string) (string, bool)) (string, error) {
	name, def, hasDef := strings.Cut(inner, ":-")
	if !validVarName(name) {
		return "", fmt.Errorf("${%s}: %q is not a variable name (letters, digits and _, not starting with a digit)", inner, name)
	}
	v, ok := lookup(name)
	switch {
	case ok && (v != "" || !hasDef):
		return v, nil
	case hasDef:
		return Expand(def, lookup)
	default:
		return "", fmt.Errorf("environment variable %s is not set (export it, or write ${%s:-default})", name, name)
	}
}

func validVarName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
