package temporal

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"kgforge/extract"
	"kgforge/llm"

	"go.temporal.io/sdk/activity"
	sdklog "go.temporal.io/sdk/log"
	sdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// TestBuildWorkflowFailsOnABadShardWithoutReducing injects a shard whose
// input no retry can mend (its pipeline changed): the workflow fails
// naming the shard after one attempt, and the reduce never runs; the
// other shards' results are not lost on the way (a healthy run hands all
// of them to the reduce).
func TestBuildWorkflowFailsOnABadShardWithoutReducing(t *testing.T) {
	for _, bad := range []int{-1, 1} {
		var s testsuite.WorkflowTestSuite
		s.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
		env := s.NewTestWorkflowEnvironment()
		env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute}) // a loaded machine
		var mu sync.Mutex
		attempts := map[int]int{}
		var reduced []ShardResult
		env.RegisterActivityWithOptions(func(_ context.Context, in ShardInput) (ShardResult, error) {
			mu.Lock()
			attempts[in.I]++
			mu.Unlock()
			if in.I == bad {
				return ShardResult{}, sdk.NewNonRetryableApplicationError("pipeline changed", errBadInput, nil)
			}
			return ShardResult{Shard: "shard", LLM: llm.Usage{Calls: 2}}, nil
		}, activity.RegisterOptions{Name: ShardActivity})
		env.RegisterActivityWithOptions(func(_ context.Context, in ReduceInput) (Result, error) {
			reduced = in.Shards
			return Result{BuildID: "b"}, nil
		}, activity.RegisterOptions{Name: ReduceActivity})
		env.ExecuteWorkflow(BuildWorkflow, Build{Pipeline: "p.yaml", Shards: 3})
		err := env.GetWorkflowError()
		if bad < 0 {
			if err != nil || len(reduced) != 3 || reduced[2].LLM.Calls != 2 {
				t.Errorf("healthy build: err %v, reduce got %d shard results %+v", err, len(reduced), reduced)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "shard 1/3") || !strings.Contains(err.Error(), errBadInput) {
			t.Errorf("bad shard 1: workflow error %v; want one naming shard 1/3 of type %s", err, errBadInput)
		}
		mu.Lock() // the other shards' activities may still be ending
		n := attempts[bad]
		mu.Unlock()
		if n != 1 || reduced != nil {
			t.Errorf("bad shard 1: %d attempts, reduce ran: %v; want 1 attempt and no reduce", n, reduced != nil)
		}
	}
}

// TestAddStatsSumsEveryCount fills every field of two extract.Stats and
// llm.Usage with ones: a field added to either and not summed by
// addStats or addUsage stays at one, and fails the test.
func TestAddStatsSumsEveryCount(t *testing.T) {
	for _, pair := range []struct{ sum, one any }{
		{func() any { o := ones[extract.Stats](t); return addStats(o, o) }(), ones[extract.Stats](t)},
		{func() any { o := ones[llm.Usage](t); return addUsage(o, o) }(), ones[llm.Usage](t)},
	} {
		sum, one := reflect.ValueOf(pair.sum), reflect.ValueOf(pair.one)
		for i := range sum.NumField() {
			f, name := sum.Field(i), sum.Type().Field(i).Name
			switch f.Kind() {
			case reflect.Map:
				if f.Len() != 1 || f.MapIndex(reflect.ValueOf("k")).Int() != 2 {
					t.Errorf("%s.%s: %v; want map[k:2]", sum.Type(), name, f)
				}
			default:
				if f.Int() != 2*one.Field(i).Int() {
					t.Errorf("%s.%s: %v; want %v", sum.Type(), name, f, 2*one.Field(i).Int())
				}
			}
		}
	}
}

// ones returns a T whose every int field is 1 and every map {"k": 1}.
func ones[T any](t *testing.T) T {
	var v T
	rv := reflect.ValueOf(&v).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(1)
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]int{"k": 1}))
		default:
			t.Fatalf("%T.%s: a %s; the test knows ints and maps", v, rv.Type().Field(i).Name, f.Kind())
		}
	}
	return v
}
