package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

const schedulingDir = "../../examples/scheduling"

// shellCommand finds kgforge command lines in shell text: from "kgforge
// SUBCOMMAND" to the end of the command (a newline, ;, &, |, > or the
// closing quote of a Python string).
var shellCommand = regexp.MustCompile(`kgforge (?:validate|build|diff|load|bundle|query|ask|review|eval|mcp)\b[^"\n;&|>]*`)

// checkCommandLine parses args (kgforge's own arguments, without the
// program name) as kgforge would: the subcommand exists, every flag
// exists and takes the value given, and the positional arguments fit.
func checkCommandLine(t *testing.T, where string, args []string) {
	t.Helper()
	if err := commandLineErr(args); err != nil {
		t.Errorf("%s: kgforge %s: %v", where, strings.Join(args, " "), err)
	}
}

func commandLineErr(args []string) error {
	root := newRoot(&globals{logOut: &logSink{w: io.Discard}})
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if c == root {
		return errors.New("no such command")
	}
	if err := c.ParseFlags(rest); err != nil {
		return err
	}
	return c.ValidateArgs(c.Flags().Args())
}

// commandsIn walks decoded YAML for every command list that runs kgforge.
func commandsIn(v any, found *[][]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if list, ok := e.([]any); ok && k == "command" && len(list) > 0 && list[0] == "kgforge" {
				var args []string
				for _, a := range list[1:] {
					args = append(args, a.(string))
				}
				*found = append(*found, args)
				continue
			}
			commandsIn(e, found)
		}
	case []any:
		for _, e := range v {
			commandsIn(e, found)
		}
	}
}

// TestSchedulingExamplesParseAndUseRealFlags keeps examples/scheduling
// true: the CronJob is valid YAML, the Airflow DAG compiles (when python3
// is here), and every kgforge command line in the three uses commands and
// flags kgforge has.
func TestSchedulingExamplesParseAndUseRealFlags(t *testing.T) {
	t.Run("cronjob.yaml", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join(schedulingDir, "cronjob.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("cronjob.yaml: %v", err)
		}
		if doc["kind"] != "CronJob" || doc["apiVersion"] != "batch/v1" {
			t.Errorf("cronjob.yaml: kind %v, apiVersion %v", doc["kind"], doc["apiVersion"])
		}
		var cmds [][]string
		commandsIn(doc, &cmds)
		if len(cmds) != 2 {
			t.Fatalf("cronjob.yaml: %d kgforge commands, want validate and build", len(cmds))
		}
		for _, args := range cmds {
			checkCommandLine(t, "cronjob.yaml", args)
		}
	})
	for _, name := range []string{"crontab", "airflow_kgforge.py"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(schedulingDir, name))
			if err != nil {
				t.Fatal(err)
			}
			lines := shellCommand.FindAllString(string(raw), -1)
			if len(lines) == 0 {
				t.Fatalf("%s: no kgforge command line found", name)
			}
			for _, line := range lines {
				checkCommandLine(t, name, strings.Fields(line)[1:])
			}
		})
	}
	t.Run("airflow_kgforge.py compiles", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 is not installed: the Airflow DAG is not compiled")
		}
		cache := t.TempDir()
		cmd := exec.Command(py, "-m", "py_compile", filepath.Join(schedulingDir, "airflow_kgforge.py"))
		cmd.Env = append(os.Environ(), "PYTHONPYCACHEPREFIX="+cache) // leave no __pycache__ in the repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("py_compile: %v\n%s", err, out)
		}
	})
}

// TestCheckCommandLine_CatchesWhatIsWrong: the checker itself can fail.
func TestCheckCommandLine_CatchesWhatIsWrong(t *testing.T) {
	for _, args := range [][]string{
		{"build", "--pipelines", "p.yaml"},
		{"bild", "--pipeline", "p.yaml"},
		{"diff", "only-one"},
		{"build", "--keep", "seven"},
	} {
		if commandLineErr(args) == nil {
			t.Errorf("kgforge %s passed the check", strings.Join(args, " "))
		}
	}
}
