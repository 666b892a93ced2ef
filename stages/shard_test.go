package stages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/kg"
	"kgforge/llm"
	"kgforge/pipelines"
)

// shardCode is the code version of every run in these tests, the child
// processes' too.
const shardCode = "shard-test"

// shardCorpus writes a pipeline over fourteen one-chunk documents and two
// CSV tables, extracting one chunk at a time, and returns it.
func shardCorpus(t *testing.T) *pipelines.Pipeline {
	t.Helper()
	dir := t.TempDir()
	for i := range 14 {
		writeAged(t, filepath.Join(dir, "docs", fmt.Sprintf("d%02d.md", i)),
			fmt.Sprintf("# Plant %d\nThe plant number %d assembles the Trail bike for Velora Cycles.\n", i, i))
	}
	writeAged(t, filepath.Join(dir, "data", "parts.csv"), "part_id,name\nP1,Frame\nP2,Wheel\n")
	writeAged(t, filepath.Join(dir, "data", "plants.csv"), "plant_id,city\nPL1,Porto\nPL2,Lyon\n")
	pf := filepath.Join(dir, "p.yaml")
	raw := "name: sharded\nsources:\n  - {name: docs, paths: [\"docs/*.md\"]}\n  - {name: tables, paths: [\"data/*.csv\"]}\n" +
		"llm: {chat_model: m, concurrency: 1}\nresolve: {embeddings: false}\n"
	if err := os.WriteFile(pf, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := pipelines.Load(pf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// unitsPerShard counts the extract units of a bundle's chunks (one chunk
// each in shardCorpus) that each of n shards runs.
func unitsPerShard(t *testing.T, dir string, n int) []int {
	t.Helper()
	b, err := bundle.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = b.Close() }() // read only
	per := make([]int, n)
	if err := b.Chunks(context.Background(), func(c kg.Chunk) error {
		per[hashShard(n, c.ID)]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return per
}

// rendezvous holds the first want chats until want of them are in flight
// together, says so, and lets them answer when the test says.
type rendezvous struct {
	want     int
	mu       sync.Mutex
	n        int
	together chan struct{}
	release  chan struct{}
}

func (rv *rendezvous) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			rv.mu.Lock()
			if rv.n++; rv.n == rv.want {
				close(rv.together)
			}
			rv.mu.Unlock()
			select {
			case <-rv.release:
			case <-time.After(2 * time.Minute): // a guard against a hang, not a timing
				http.Error(w, "the shards never ran together", http.StatusServiceUnavailable)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// shardChildEnv carries a child shard run's settings; unset,
// TestShardProcess does nothing.
const shardChildEnv = "KGFORGE_TEST_SHARD"

type shardChild struct {
	Pipeline, Out, Cache, Host string
	Shard                      Shard
}

// TestShardProcess is not a test: run as a child process of
// TestRunner_FourShardsTogetherThenReduceEqualUnsharded, it runs one shard
// and prints its report as JSON.
func TestShardProcess(_ *testing.T) {
	raw := os.Getenv(shardChildEnv)
	if raw == "" {
		return
	}
	fail := func(err error) { fmt.Fprintln(os.Stderr, "error:", err); os.Exit(1) }
	var in shardChild
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		fail(err)
	}
	p, err := pipelines.Load(in.Pipeline)
	if err != nil {
		fail(err)
	}
	c, err := llm.New(llm.Options{Host: in.Host, BaseDelay: time.Millisecond, MaxRetries: 1})
	if err != nil {
		fail(err)
	}
	defer c.Close()
	rn := &Runner{LLM: c, CacheDir: in.Cache, OutDir: in.Out, CodeVersion: shardCode, Shard: in.Shard}
	rep, err := rn.Run(context.Background(), p)
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(rep); err != nil {
		fail(err)
	}
}

// startShard starts shard s of a build as a child process.
func startShard(t *testing.T, in shardChild) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestShardProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), shardChildEnv+"="+string(raw))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

// TestRunner_FourShardsTogetherThenReduceEqualUnsharded runs a build as four
// shard processes at once, then the reduce, and checks it against one
// unsharded build: the shards were in flight together (the fake server
// holds the first chats until four are), a build into their output fails
// busy while they run, no chunk is sent to the model twice, the reduce asks
// the model nothing, and the two bundles are equal (files, per-table
// digests and rows, counts). The model is the stages tests' fake Ollama
// server, which answers every chat at once and never fails.
func TestRunner_FourShardsTogetherThenReduceEqualUnsharded(t *testing.T) {
	p := shardCorpus(t)
	ctx := context.Background()
	c, refChats := fakeOllama(t, false)
	ref, err := (&Runner{LLM: c, CacheDir: t.TempDir(), OutDir: t.TempDir(), CodeVersion: shardCode}).Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	per := unitsPerShard(t, ref.Bundle, 4)
	for i, n := range per {
		if n == 0 {
			t.Fatalf("the corpus gives shard %d/4 no extract unit (%v): the test needs every shard to ask the model", i, per)
		}
	}

	var chats atomic.Int32
	rv := &rendezvous{want: 4, together: make(chan struct{}), release: make(chan struct{})}
	srv := httptest.NewServer(rv.wrap(fakeOllamaHandler(&chats, false)))
	t.Cleanup(srv.Close)
	release := sync.OnceFunc(func() { close(rv.release) })
	t.Cleanup(release) // before the server closes, however the test ends
	out, cache := t.TempDir(), t.TempDir()
	type child struct {
		cmd            *exec.Cmd
		stdout, stderr *strings.Builder
	}
	var kids []child
	exited := make(chan int, 4)
	for i := range 4 {
		cmd, so, se := startShard(t, shardChild{Pipeline: p.Path, Out: out, Cache: cache, Host: srv.URL, Shard: Shard{I: i, N: 4}})
		kids = append(kids, child{cmd, so, se})
		go func() { _ = cmd.Wait(); exited <- i }()
	}
	select {
	case <-rv.together:
	case i := <-exited:
		release()
		t.Fatalf("shard %d/4 ended before the four were in flight together: %s", i, kids[i].stderr)
	}
	// While the shards run, any other build into their output is refused.
	closed, err := llm.New(llm.Options{Host: "http://" + closedServer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closed.Close)
	_, busyErr := (&Runner{LLM: closed, CacheDir: cache, OutDir: out, CodeVersion: shardCode}).Run(ctx, p)
	release()
	for range 4 {
		<-exited
	}
	var be *BusyError
	if !errors.As(busyErr, &be) || !be.Shards {
		t.Errorf("a build while shards run: %v, want a busy error naming the shard runs", busyErr)
	}

	run := 0
	for i, k := range kids {
		if !k.cmd.ProcessState.Success() {
			t.Fatalf("shard %d/4 failed: %s", i, k.stderr)
		}
		var rep Report
		line, _, _ := strings.Cut(k.stdout.String(), "\n") // the report, then the test binary's PASS
		if err := json.Unmarshal([]byte(line), &rep); err != nil {
			t.Fatalf("shard %d/4 report: %v: %s", i, err, k.stdout)
		}
		ex := rep.Plan.Units["extract"]
		if ex.Run != per[i] || ex.Reused != 0 || ex.Run+rep.Plan.OtherShards != ref.Plan.Units["extract"].Run || rep.Bundle != "" || rep.Shard == nil || *rep.Shard != (Shard{I: i, N: 4}) {
			t.Errorf("shard %d/4: units %+v, %d left to others, bundle %q, shard %v; want %d run of %d", i, *ex, rep.Plan.OtherShards, rep.Bundle, rep.Shard, per[i], ref.Plan.Units["extract"].Run)
		}
		run += ex.Run
	}
	if chats.Load() != refChats.Load() || run != ref.Plan.Units["extract"].Run {
		t.Errorf("the shards made %d chats and ran %d extract units; the unsharded build %d and %d", chats.Load(), run, refChats.Load(), ref.Plan.Units["extract"].Run)
	}

	sc, err := llm.New(llm.Options{Host: srv.URL, BaseDelay: time.Millisecond, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sc.Close)
	before := chats.Load()
	red, err := (&Runner{LLM: sc, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Reduce: true}).Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := chats.Load() - before; n != 0 || red.Plan.Units["extract"].Run != 0 || !red.Reduce {
		t.Errorf("the reduce made %d chats and ran %d extract units (reduce %v); want none", n, red.Plan.Units["extract"].Run, red.Reduce)
	}
	m1, m2 := manifestOf(t, ref.Bundle), manifestOf(t, red.Bundle)
	if d := bundle.Compare(m1, m2); len(d) != 0 || !m1.HasTableDigests() {
		t.Errorf("the sharded bundle differs from the unsharded one: %+v", d)
	}
	if fmt.Sprint(m1.Counts) != fmt.Sprint(m2.Counts) || red.Nodes != ref.Nodes || red.Edges != ref.Edges || red.Tables != 2 {
		t.Errorf("counts: unsharded %v, sharded %v", m1.Counts, m2.Counts)
	}

	// A shard run again, after all, finds its units stored.
	again, err := (&Runner{LLM: sc, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Shard: Shard{I: 1, N: 4}}).Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if ex := again.Plan.Units["extract"]; ex.Run != 0 || ex.Reused != per[1] || chats.Load() != before {
		t.Errorf("shard 1/4 again: units %+v; want all %d reused, no chat", *ex, per[1])
	}
}

// TestRunner_ReduceNamesTheMissingUnitsAndAPlainBuildReduces runs three
// shards of four (their reports match docs/run-report.schema.json): the
// reduce fails naming the fourth's units and publishes nothing; once the
// fourth has run, a plain build asks the model nothing.
func TestRunner_ReduceNamesTheMissingUnitsAndAPlainBuildReduces(t *testing.T) {
	p := shardCorpus(t)
	ctx := context.Background()
	c, chats := fakeOllama(t, false)
	out, cache := t.TempDir(), t.TempDir()
	shard := func(i int) *Report {
		t.Helper()
		rep, err := (&Runner{LLM: c, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Shard: Shard{I: i, N: 4}}).Run(ctx, p)
		if err != nil {
			t.Fatalf("shard %d/4: %v", i, err)
		}
		return rep
	}
	for i := range 3 {
		rep := shard(i)
		raw, err := os.ReadFile(filepath.Join(out, "reports", rep.BuildID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range validateReport(t, loadSchema(t), raw) {
			t.Errorf("shard %d/4's report: %s", i, e)
		}
	}
	_, err := (&Runner{LLM: c, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Reduce: true}).Run(ctx, p)
	var me *MissingError
	if !errors.As(err, &me) || !errors.Is(err, ErrUnitsMissing) || !strings.Contains(err.Error(), "docs/d") {
		t.Fatalf("reduce with a shard missing: %v, want the missing units named", err)
	}
	if _, err := os.Lstat(filepath.Join(out, bundle.LatestLink)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed reduce published a bundle: %v", err)
	}
	last := shard(3)
	if n := len(me.Units); n != last.Plan.Units["extract"].Run {
		t.Errorf("the reduce named %d missing units; shard 3/4 then ran %d: %v", n, last.Plan.Units["extract"].Run, me.Units)
	}
	before := chats.Load()
	rep, err := (&Runner{LLM: c, CacheDir: cache, OutDir: out, CodeVersion: shardCode}).Run(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := chats.Load() - before; n != 0 || rep.Plan.Units["extract"].Run != 0 || rep.Bundle == "" {
		t.Errorf("a plain build after every shard: %d chats, %d units run, bundle %q; want a reduce", n, rep.Plan.Units["extract"].Run, rep.Bundle)
	}
}

// TestRunner_RefusesAShardOutOfRange checks the Shard and Reduce settings
// before anything runs.
func TestRunner_RefusesAShardOutOfRange(t *testing.T) {
	p := shardCorpus(t)
	for _, rn := range []*Runner{{Shard: Shard{I: 4, N: 4}}, {Shard: Shard{I: -1, N: 2}}, {Shard: Shard{I: 0, N: -1}}, {Shard: Shard{I: 0, N: 2}, Reduce: true}} {
		rn.OutDir = t.TempDir()
		if _, err := rn.Run(context.Background(), p); err == nil || !strings.Contains(err.Error(), "shard "+strconv.Itoa(rn.Shard.I)) {
			t.Errorf("Shard %v, Reduce %v: %v, want it refused", rn.Shard, rn.Reduce, err)
		}
	}
}

// TestParseShard reads --shard's forms, the Indexed Job's index among
// them, and refuses every malformed one naming it.
func TestParseShard(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == ShardIndexEnv {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		in, env string
		want    Shard
	}{{"0/4", "", Shard{0, 4}}, {"3/4", "", Shard{3, 4}}, {"auto/4", "2", Shard{2, 4}}, {"0/1", "", Shard{0, 1}}} {
		got, err := ParseShard(c.in, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("ParseShard(%q) with index %q: %v, %v; want %v", c.in, c.env, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, env string }{{"4/4", ""}, {"-1/4", ""}, {"1", ""}, {"1/0", ""}, {"a/4", ""}, {"auto/4", ""}, {"auto/4", "4"}, {"auto/4", "x"}, {"1/4/2", ""}} {
		if got, err := ParseShard(c.in, env(c.env)); err == nil || !strings.Contains(err.Error(), c.in) {
			t.Errorf("ParseShard(%q) with index %q: %v, %v; want an error naming it", c.in, c.env, got, err)
		}
	}
}

// TestForecast_AShardPlansItsOwnUnits: the plan of a shard counts the
// extract units that shard would run, so the four shards' plans add up to
// the unsharded plan, and each matches what its shard then runs.
func TestForecast_AShardPlansItsOwnUnits(t *testing.T) {
	p := shardCorpus(t)
	ctx := context.Background()
	c, _ := fakeOllama(t, false)
	out, cache := t.TempDir(), t.TempDir()
	whole, err := (&Runner{LLM: c, CacheDir: cache, OutDir: out, CodeVersion: shardCode}).Forecast(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for i := range 4 {
		rn := &Runner{LLM: c, CacheDir: cache, OutDir: out, CodeVersion: shardCode, Shard: Shard{I: i, N: 4}}
		f, err := rn.Forecast(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rn.Run(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if f.Units["extract"].Run != rep.Plan.Units["extract"].Run {
			t.Errorf("shard %d/4 planned %d extract units and ran %d", i, f.Units["extract"].Run, rep.Plan.Units["extract"].Run)
		}
		sum += f.Units["extract"].Run
	}
	if sum != whole.Units["extract"].Run || sum == 0 {
		t.Errorf("the shards planned %d extract units; the unsharded plan %d", sum, whole.Units["extract"].Run)
	}
}
