package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kgforge/stages"

	"github.com/goccy/go-yaml"
)

const kubernetesDir = "../../examples/kubernetes"

// job reads one of examples/kubernetes' Jobs: its spec and its one kgforge
// command line, checked against kgforge's real flags.
func job(t *testing.T, name string) (spec map[string]any, args []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(kubernetesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if doc["kind"] != "Job" || doc["apiVersion"] != "batch/v1" {
		t.Errorf("%s: kind %v, apiVersion %v; want a batch/v1 Job", name, doc["kind"], doc["apiVersion"])
	}
	var cmds [][]string
	commandsIn(doc, &cmds)
	if len(cmds) != 1 {
		t.Fatalf("%s: %d kgforge commands, want one", name, len(cmds))
	}
	checkCommandLine(t, name, cmds[0])
	spec, _ = doc["spec"].(map[string]any)
	return spec, cmds[0]
}

// flag returns the value of --name in args ("" when absent).
func flag(args []string, name string) string {
	if i := slices.Index(args, "--"+name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// TestKubernetesExamplesParseAndAgree keeps examples/kubernetes true: both
// Jobs are valid YAML with real kgforge command lines; the shards are an
// Indexed Job whose completions are the N of --shard auto/N, read from
// JOB_COMPLETION_INDEX; the reduce is one pod running --reduce; both build
// the same pipeline into the same output with the same cache on the same
// volume; and the README's kgforge lines parse too.
func TestKubernetesExamplesParseAndAgree(t *testing.T) {
	shards, sargs := job(t, "shards-job.yaml")
	reduce, rargs := job(t, "reduce-job.yaml")
	if shards["completionMode"] != "Indexed" {
		t.Errorf("shards-job.yaml: completionMode %v, want Indexed", shards["completionMode"])
	}
	sh, err := stages.ParseShard(flag(sargs, "shard"), func(k string) string {
		if k == "JOB_COMPLETION_INDEX" {
			return "0"
		}
		return ""
	})
	if err != nil || !strings.HasPrefix(flag(sargs, "shard"), "auto/") {
		t.Fatalf("shards-job.yaml: --shard %q: %v; want auto/N", flag(sargs, "shard"), err)
	}
	if c, _ := shards["completions"].(uint64); int(c) != sh.N || shards["parallelism"] != shards["completions"] {
		t.Errorf("shards-job.yaml: completions %v, parallelism %v, --shard %s: want all three N", shards["completions"], shards["parallelism"], flag(sargs, "shard"))
	}
	if !slices.Contains(rargs, "--reduce") || flag(rargs, "shard") != "" || reduce["completions"] != uint64(1) || reduce["parallelism"] != uint64(1) {
		t.Errorf("reduce-job.yaml: %v, completions %v, parallelism %v; want one pod running --reduce", rargs, reduce["completions"], reduce["parallelism"])
	}
	for _, f := range []string{"pipeline", "out"} {
		if flag(sargs, f) == "" || flag(sargs, f) != flag(rargs, f) {
			t.Errorf("--%s: shards %q, reduce %q; want the same", f, flag(sargs, f), flag(rargs, f))
		}
	}
	for _, key := range []string{"KGFORGE_CACHE_DIR", "claimName: kgforge-data", "claimName: kgforge-corpus"} {
		for _, name := range []string{"shards-job.yaml", "reduce-job.yaml"} {
			if raw, _ := os.ReadFile(filepath.Join(kubernetesDir, name)); !strings.Contains(string(raw), key) {
				t.Errorf("%s does not set %s", name, key)
			}
		}
	}
	raw, err := os.ReadFile(filepath.Join(kubernetesDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, block := range strings.Split(string(raw), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		lines = append(lines, shellCommand.FindAllString(block, -1)...)
	}
	if len(lines) < 2 {
		t.Fatalf("README.md: %d kgforge command lines, want the shards' and the reduce's", len(lines))
	}
	for _, line := range lines {
		args := strings.Fields(line)[1:]
		if i := slices.Index(args, "--shard"); i >= 0 && args[i+1] == "$i/4" {
			args[i+1] = "0/4" // the shell loop's variable
		}
		checkCommandLine(t, "README.md", args)
	}
}
