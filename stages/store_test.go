package stages

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// segmentStoreContract is what every SegmentStore must do; open returns a
// fresh view of one store each call (as another process would open it),
// and race(n), n views of it whose Puts each wait, once they found no
// segment at the address, until all n have (the window in which two
// processes both go on to store it). An object store runs it too.
func segmentStoreContract(t *testing.T, open func() SegmentStore, race func(n int) []SegmentStore) {
	a, b := address("test", "a"), address("test", "b")
	write := func(body string) func(string) (any, error) {
		return func(dir string) (any, error) {
			return map[string]string{"body": body}, os.WriteFile(filepath.Join(dir, "data"), []byte(body), 0o600)
		}
	}
	t.Run("put, has, get, list, remove", func(t *testing.T) {
		s := open()
		if s.Has(a) {
			t.Fatal("an empty store has a segment")
		}
		if _, err := s.Get(a); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Get of a missing segment: %v, want not exist", err)
		}
		for _, addr := range []string{a, b} {
			if err := s.Put(addr, write(addr)); err != nil {
				t.Fatal(err)
			}
		}
		dir, err := s.Get(a)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "data"))
		var m map[string]string
		raw, merr := os.ReadFile(filepath.Join(dir, unitFile))
		if err != nil || merr != nil || string(data) != a || json.Unmarshal(raw, &m) != nil || m["body"] != a {
			t.Errorf("segment %s reads back %q %q (%v, %v)", a, data, raw, err, merr)
		}
		got, err := s.List()
		slices.Sort(got)
		want := []string{a, b}
		slices.Sort(want)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("List: %v, %v; want %v", got, err, want)
		}
		if err := s.Remove(a); err != nil || s.Has(a) || !open().Has(b) {
			t.Errorf("Remove %s: %v; has %v, other %v", a, err, s.Has(a), open().Has(b))
		}
		if err := s.Remove(a); err != nil {
			t.Errorf("Remove of a missing segment: %v", err)
		}
	})
	t.Run("a failed writer leaves nothing", func(t *testing.T) {
		s := open()
		c := address("test", "failed")
		err := s.Put(c, func(dir string) (any, error) {
			_, _ = write("half")(dir)
			return nil, os.ErrDeadlineExceeded
		})
		list, _ := s.List()
		if !errors.Is(err, os.ErrDeadlineExceeded) || s.Has(c) || slices.Contains(list, c) {
			t.Errorf("a failed Put: %v; has %v, list %v", err, s.Has(c), list)
		}
	})
	t.Run("writers of one address at once all succeed, one copy kept", func(t *testing.T) {
		const n = 8
		c := address("test", "raced")
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i, s := range race(n) {
			wg.Go(func() { errs[i] = s.Put(c, write("same")) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Errorf("concurrent Puts of one address: %v", err)
		}
		list, err := open().List()
		if err != nil || slices.Index(list, c) < 0 || len(slices.DeleteFunc(list, func(x string) bool { return x != c })) != 1 {
			t.Errorf("after concurrent Puts: %v, %v", list, err)
		}
	})
}

// TestLocalStore_KeepsTheSegmentStoreContract runs the contract against the
// local store, each view opened without cleaning, as shard runs open it.
func TestLocalStore_KeepsTheSegmentStoreContract(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "segments")
	open := func() *localStore {
		s, err := openLocalStore(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	race := func(n int) []SegmentStore {
		var checked sync.WaitGroup
		checked.Add(n)
		out := make([]SegmentStore, n)
		for i := range out {
			s := open()
			s.beforeRename = func() { checked.Done(); checked.Wait() }
			out[i] = s
		}
		return out
	}
	segmentStoreContract(t, func() SegmentStore { return open() }, race)
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if e.Name()[0] == '.' {
			t.Errorf("left in the store: %s", e.Name())
		}
	}
}
