package pipelines

import (
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
