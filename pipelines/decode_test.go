package pipelines

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"DSN": "postgres://u:p@h/db", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct{ name, in, want, err string }{
		{"plain", "no dollars", "no dollars", ""},
		{"variable", "${DSN}", "postgres://u:p@h/db", ""},
		{"inside text", "dsn=${DSN};", "dsn=postgres://u:p@h/db;", ""},
		{"default unused", "${DSN:-x}", "postgres://u:p@h/db", ""},
		{"default for unset", "${NOPE:-never}", "never", ""},
		{"default for empty", "${EMPTY:-d}", "d", ""},
		{"empty without default", "[${EMPTY}]", "[]", ""},
		{"escaped", "$${DSN} costs $$5", "${DSN} costs $5", ""},
		{"regexp dollar stays", `^\d+$`, `^\d+$`, ""},
		{"lone dollar word stays", "$HOME", "$HOME", ""},
		{"unset", "${NOPE}", "", "environment variable NOPE is not set"},
		{"unclosed", "${DSN", "", "unclosed ${"},
		{"bad name", "${1X}", "", `"1X" is not a variable name`},
		{"empty name", "${}", "", `"" is not a variable name`},
		{"nested default", "${NOPE:-${DSN}}", "postgres://u:p@h/db", ""},
		{"nested default in text", "[${NOPE:-a${NOPE2:-b}c}]", "[abc]", ""},
		{"nested default unused", "${DSN:-${NOPE}}", "postgres://u:p@h/db", ""},
		{"nested default unset", "${NOPE:-${NOPE2}}", "", "environment variable NOPE2 is not set"},
		{"dollar in a default", "${NOPE:-$$x}", "$x", ""},
		{"nested unclosed", "${NOPE:-${DSN}", "", "unclosed ${"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Expand(c.in, lookup)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Expand(%q) = %q, %v; want error with %q", c.in, got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("Expand(%q) = %q, %v; want %q", c.in, got, err, c.want)
			}
		})
	}
}

// TestParseEnv_ExpandsValuesNeverKeys: a secret reaches the field it is
// written in, and a key that looks like a variable is a key (unknown).
func TestParseEnv_ExpandsValuesNeverKeys(t *testing.T) {
	env := map[string]string{"PG_VAR": "ERP_DSN", "MODEL": "qwen3:0.6b"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	raw := "name: x\nsources:\n  - {name: erp, kind: postgres, connection_env: '${PG_VAR}'}\nllm: {chat_model: \"${MODEL}\", max_output: 256}\n"
	p, err := ParseEnv([]byte(raw), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sources[0].ConnectionEnv != "ERP_DSN" || p.LLM.ChatModel != "qwen3:0.6b" {
		t.Errorf("connection_env %q, chat_model %q", p.Sources[0].ConnectionEnv, p.LLM.ChatModel)
	}
	_, err = ParseEnv([]byte("name: x\nsources: [{name: a, paths: ['*.md']}]\n${MODEL}: 1\n"), lookup)
	if err == nil || !strings.Contains(err.Error(), `unknown field "${MODEL}"`) {
		t.Errorf("a ${VAR} key: %v, want it reported as an unknown field, not expanded", err)
	}
}

// TestParse_ReportsEveryUnknownField: the strict decoder stopped at the
// first unknown key; now each is named with its path, beside the invalid
// values, in one error.
func TestParse_ReportsEveryUnknownField(t *testing.T) {
	raw := "name: x\nsources:\n  - {name: a, paths: ['*.md'], kindd: text}\n  - {name: b, paths: ['*.md'], chunking: {sise: 100}}\nllm: {concurrency: 0, modle: x, num_thread: -2}\n"
	_, err := Parse([]byte(raw))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{
		`sources[0].kindd: kindd: unknown field "kindd"`,
		`sources[1].chunking.sise: sise: unknown field "sise"; sources[1].chunking has overlap, size`,
		`llm.modle: modle: unknown field "modle"`,
		"llm.concurrency: 0: must be between 1 and 64",
		"llm.num_thread: -2: must be between 1 and 256",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q\nfull error:\n%v", want, err)
		}
	}
}

func TestParse_OneDocument(t *testing.T) {
	_, err := Parse([]byte("name: x\nsources: [{name: a, paths: ['*.md']}]\n---\nname: y\n"))
	if err == nil || !strings.Contains(err.Error(), "one YAML document") {
		t.Errorf("two documents: %v", err)
	}
}

// TestParse_LLMTimeoutIsADuration: llm.timeout reads "90s" or "10m"; a
// negative one is named.
func TestParse_LLMTimeoutIsADuration(t *testing.T) {
	p, err := Parse([]byte("name: x\nsources:\n  - {name: a, paths: ['*.md'], kind: text}\nllm: {timeout: 90s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.LLM.Timeout != 90*time.Second {
		t.Errorf("llm.timeout = %v, want 1m30s", p.LLM.Timeout)
	}
	_, err = Parse([]byte("name: x\nsources:\n  - {name: a, paths: ['*.md'], kind: text}\nllm: {timeout: -1m}\n"))
	if err == nil || !strings.Contains(err.Error(), "llm.timeout: -1m0s: must not be negative") {
		t.Errorf("negative timeout: err = %v", err)
	}
}

// TestParseEnv_ErrorsNameTheVariableNotItsValue: an invalid value taken
// from the environment is shown as written, ${VAR}, in every error, so
// that a secret set in the wrong variable never reaches a log.
func TestParseEnv_ErrorsNameTheVariableNotItsValue(t *testing.T) {
	env := map[string]string{
		"RE": "hunter2(", "KIND": "s3cr3t-kind", "TIMEOUT": "10xs3cr3t", "GLOB": "/s3cr3t-path", "TYPE": "s3cr3t-type", "MODE": "s3cr3t-mode",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	raw := `name: x
sources:
  - {name: a, paths: ['*.log', '${GLOB}'], kind: '${KIND}', record_start: '${RE}'}
llm: {timeout: '${TIMEOUT}'}
extract: {mode: '${NOPE:-${MODE}}'}
resolve: {compatible_types: {A: ['${TYPE}', '']}}
`
	_, err := ParseEnv([]byte(raw), lookup)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{
		`sources[0].paths[1]: "${GLOB}": must be a relative slash path`,
		`sources[0].kind: "${KIND}": must be one of`,
		`sources[0].record_start: "${RE}": is not a valid regular expression: missing closing )`,
		`llm.timeout: "${TIMEOUT}": is not a duration`,
		`extract.mode: "${NOPE:-${MODE}}": must be auto, chat, completion or specialist`,
		`resolve.compatible_types: (not shown: it holds "${TYPE}"): type names must not be empty`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q\nfull error:\n%v", want, err)
		}
	}
	for _, secret := range []string{"hunter2", "s3cr3t"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error shows a value of the environment, %q:\n%v", secret, err)
		}
	}
}

// TestParseEnv_RefusesVariablesInStoredNames: the pipeline's and its
// sources' names are stored in every bundle as they are, so they cannot
// take a value from the environment; $$ is still a $.
func TestParseEnv_RefusesVariablesInStoredNames(t *testing.T) {
	lookup := func(k string) (string, bool) { return "s3cr3t", k == "SET" }
	_, err := ParseEnv([]byte("name: 'kg-${SET}'\nsources: [{name: '${NOPE:-docs}', paths: ['*.md']}]\n"), lookup)
	for _, want := range []string{
		`name: "kg-${SET}": must be written out, not taken from the environment: it is stored in every bundle's manifest and run report`,
		`sources[0].name: "${NOPE:-docs}": must be written out`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q\nfull error:\n%v", want, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error shows the variable's value:\n%v", err)
	}
	p, err := ParseEnv([]byte("name: 'cost$$'\nsources: [{name: docs, paths: ['*.md']}]\n"), lookup)
	if err != nil || p.Name != "cost$" {
		t.Errorf("name with $$: %+v, %v; want cost$", p, err)
	}
}

// TestLoad_RefusesAFileOverTheSizeLimit: a pipeline file over
// MaxFileBytes is refused before it is decoded, naming the file, its size
// and the limit.
func TestLoad_RefusesAFileOverTheSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	line := "# " + strings.Repeat("x", 1021) + "\n"
	body := "name: x\nsources: [{name: a, paths: ['*.md']}]\n" + strings.Repeat(line, MaxFileBytes/len(line)+1)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := fmt.Sprintf("read pipeline %s: %d bytes, over the limit of %d bytes (1 MiB) for a pipeline file", path, len(body), MaxFileBytes)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load: %v\nwant an error with %q", err, want)
	}
	if _, err := ParseEnv([]byte(body), func(string) (string, bool) { return "", false }); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("ParseEnv: %v, want the size limit", err)
	}
}
