package pipelines

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// fieldPaths lists every key a pipeline file may hold, as docs/pipeline.md
// writes it: sources[].name, link.tables.<name>.entity.
func fieldPaths(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := yamlName(f)
		if name == "" {
			continue
		}
		path := prefix + name
		out = append(out, path)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct:
			out = append(out, fieldPaths(ft, path+".")...)
		case ft.Kind() == reflect.Slice && elemStruct(ft):
			out = append(out, fieldPaths(ft.Elem(), path+"[].")...)
		case ft.Kind() == reflect.Map && elemStruct(ft):
			out = append(out, fieldPaths(ft.Elem(), path+".<name>.")...)
		}
	}
	return out
}

func elemStruct(t reflect.Type) bool {
	e := t.Elem()
	for e.Kind() == reflect.Pointer {
		e = e.Elem()
	}
	return e.Kind() == reflect.Struct
}

// TestDocsNameEveryField keeps docs/pipeline.md true: every key of the
// Pipeline structs is named there, in backticks, by its full path.
func TestDocsNameEveryField(t *testing.T) {
	doc, err := os.ReadFile("../docs/pipeline.md")
	if err != nil {
		t.Fatal(err)
	}
	paths := fieldPaths(reflect.TypeOf(Pipeline{}), "")
	if len(paths) < 50 {
		t.Fatalf("only %d field paths found: the walk is broken", len(paths))
	}
	for _, p := range paths {
		if !strings.Contains(string(doc), "`"+p+"`") {
			t.Errorf("docs/pipeline.md does not name `%s`", p)
		}
	}
}
