package stages

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

// HeapProfileEnv names the environment variable of a diagnostic: when set
// to a file path, Run writes a pprof heap profile there each time the
// live heap reaches a new high (by a sixteenth), so that the file left at
// the end shows what the build held at its peak (read it with
// `go tool pprof -sample_index=inuse_space FILE`), FILE.rss the same at
// the resident set's last high, and beside them FILE.peak.txt: the process's resident set at its highest, what of it
// the Go runtime held, and the stages ended by then.
const HeapProfileEnv = "KGFORGE_HEAPPROFILE"

// heapWatch samples the live heap and the resident set every interval
// until stop, which writes the resident peak's account. It returns a
// no-op stop when path is empty. done names the stages ended so far.
func heapWatch(path string, interval time.Duration, done func() string) (stop func() error) {
	if path == "" {
		return func() error { return nil }
	}
	quit, result := make(chan struct{}), make(chan error, 1)
	go func() {
		var w watch
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			w.sample(path, done)
			select {
			case <-quit:
				result <- errors.Join(append(w.errs, os.WriteFile(path+".peak.txt", []byte(w.peak), 0o644))...)
				return
			case <-tick.C:
			}
		}
	}()
	return func() error {
		close(quit)
		return <-result
	}
}

// watch is what heapWatch has seen so far.
type watch struct {
	high, rss uint64
	peak      string // the account of the resident peak
	errs      []error
}

var watchMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/total:bytes", "/memory/classes/heap/released:bytes", "/gc/heap/goal:bytes"}

func (w *watch) sample(path string, done func() string) {
	s := make([]metrics.Sample, len(watchMetrics))
	for i, name := range watchMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	if live := s[0].Value.Uint64(); live > w.high+w.high/16 {
		w.high = live
		w.errs = append(w.errs, writeHeapProfile(path))
	}
	rss := residentBytes()
	if rss <= w.rss {
		return
	}
	if rss > w.rss+w.rss/32 {
		w.errs = append(w.errs, writeHeapProfile(path+".rss"))
	}
	w.rss = rss
	goMapped := s[1].Value.Uint64() - s[2].Value.Uint64()
	w.peak = fmt.Sprintf("resident %d MiB; Go runtime mapped (less released) %d MiB, live heap at the last GC %d MiB, heap goal %d MiB; outside Go (cgo: DuckDB) about %d MiB; stages ended: %s\n",
		rss>>20, goMapped>>20, s[0].Value.Uint64()>>20, s[3].Value.Uint64()>>20, (int64(rss)-int64(goMapped))>>20, done())
}

// residentBytes is the process's resident set size (VmRSS), 0 when unknown.
func residentBytes() uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb uint64
			_, _ = fmt.Sscan(v, &kb)
			return kb << 10
		}
	}
	return 0
}

// stagesEnded names the stages of rep ended so far, sorted.
func stagesEnded(rep *Report) func() string {
	return func() string {
		rep.mu.Lock()
		defer rep.mu.Unlock()
		return strings.Join(slices.Sorted(maps.Keys(rep.Stages)), " ")
	}
}

// writeHeapProfile writes the heap profile to path, through a temporary
// file so that a reader never sees half of one.
func writeHeapProfile(path string) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if err = errors.Join(err, f.Close()); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
