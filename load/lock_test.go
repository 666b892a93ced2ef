package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLoaderIntegration_TwoFullLoadsOfOneGraphRunOneAtATime starts two full
// loads of different bundles into one graph at the same moment. They must
// not run at once: each either succeeds (the second waited for the first)
// or fails at once saying the graph is being loaded, and the graph then
// holds one of the two bundles whole, with no build left loading.
func TestLoaderIntegration_TwoFullLoadsOfOneGraphRunOneAtATime(t *testing.T) {
	uri := neo4jURI(t)
	ctx := context.Background()
	loaders := []*Loader{newLoader(t, uri, 50), newLoader(t, uri, 50)}
	var states [2][]string
	var ids [2]string
	var errs [2]error
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, l := range loaders {
		l.cfg.Graph = loaders[0].cfg.Graph
		l.cfg.Full = true
		g := testGraph(400, fmt.Sprint("load ", i))
		b := buildBundle(t, fmt.Sprintf("%d-%s", i, t.Name()), g)
		states[i], ids[i] = bundleState(g), b.Manifest.BuildID
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = l.Load(ctx, b)
		}()
	}
	close(start)
	wg.Wait()
	t.Logf("the two loads returned %v", errs)
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case strings.Contains(err.Error(), "is being loaded by"):
		default:
			t.Errorf("load %d beside another load of its graph: %v; want success or a clear busy error", i, err)
		}
	}
	if ok == 0 {
		t.Fatalf("neither load succeeded: %v", errs)
	}
	cur, err := loaders[0].Current(ctx, loaders[0].cfg.Graph)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(ids[:], cur)
	if i < 0 {
		t.Fatalf("the graph's current build is %q, neither of %v", cur, ids)
	}
	if got := graphState(t, loaders[0]); !slices.Equal(got, states[i]) {
		t.Errorf("the graph holds %d lines, want the %d of bundle %s", len(got), len(states[i]), cur)
	}
	checkBuilds(t, loaders[0], cur)
}

// TestLoaderIntegration_GraphLockNamesItsHolderAndEndsWithIt holds a
// graph's lock as a running load does: a load of that graph fails after
// its wait with a GraphBusyError naming the holder's build and pid, and
// writes nothing; a load of another graph runs. Once the holder's
// connection closes without a word (as when its process is killed), the
// next load takes the lock and succeeds.
func TestLoaderIntegration_GraphLockNamesItsHolderAndEndsWithIt(t *testing.T) {
	uri := neo4jURI(t)
	ctx := context.Background()
	l, other := newLoader(t, uri, 100), newLoader(t, uri, 100)
	other.cfg.Graph += "-other"
	l.lockWait = 500 * time.Millisecond
	p := startProxy(t, uri) // its cut is the holder's process dying
	holder, err := New(ctx, Config{URI: p.uri(), Username: os.Getenv("NEO4J_USERNAME"), Password: os.Getenv("NEO4J_PASSWORD")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Close(ctx) })
	if _, err := holder.lockGraph(ctx, l.cfg.Graph, "20261201T000000Z-holder"); err != nil {
		t.Fatal(err)
	}
	g := testGraph(50, "x")
	b := buildBundle(t, t.Name(), g)
	start := time.Now()
	_, err = l.Load(ctx, b)
	var busy *GraphBusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrGraphBusy) {
		t.Fatalf("load of a locked graph: %v; want a GraphBusyError", err)
	}
	if busy.Holder.BuildID != "20261201T000000Z-holder" || busy.Holder.PID != int64(os.Getpid()) {
		t.Errorf("busy names %+v; want build 20261201T000000Z-holder, pid %d", busy.Holder, os.Getpid())
	}
	for _, want := range []string{l.cfg.Graph, "20261201T000000Z-holder", "one load per graph at a time"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("busy error %q does not say %q", err, want)
		}
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("the busy load took %v; want it to give up after its wait", waited)
	}
	if n, err := l.query(ctx, "MATCH (b:"+BuildLabel+" {graph: $g}) RETURN count(b)", map[string]any{"g": l.cfg.Graph}); err != nil || n != "0" {
		t.Errorf("the refused load registered %s builds (%v)", n, err)
	}
	if _, err := other.Load(ctx, buildBundle(t, "other-"+t.Name(), g)); err != nil {
		t.Errorf("a load of another graph beside the lock: %v", err)
	}

	p.cut()
	if _, err := l.Load(ctx, b); err != nil {
		t.Fatalf("load after the holder's connection closed: %v", err)
	}
	if got := graphState(t, l); !slices.Equal(got, bundleState(g)) {
		t.Errorf("the graph holds %d lines, want %d", len(got), len(bundleState(g)))
	}
}
