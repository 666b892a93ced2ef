package review_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
	"kgforge/review"
)

// TestServer_TwoPagesOnOneOverridesFileKeepEveryDecision: two review
// servers (as two kgforge review processes would be) write one overrides
// file, each a decision at the same moment, round after round. Every
// decision answered 303 is in the file.
func TestServer_TwoPagesOnOneOverridesFileKeepEveryDecision(t *testing.T) {
	overrides := filepath.Join(t.TempDir(), "overrides.yaml")
	a := newEnv(t, fixture(), review.Options{Overrides: overrides, By: "ana"})
	b := newEnv(t, fixture(), review.Options{Overrides: overrides, By: "bo"})
	tokA, tokB := a.token(t), b.token(t)
	const rounds = 15
	for round := range rounds {
		if err := os.Remove(overrides); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		start := make(chan struct{})
		codes := make([]int, 2)
		var wg sync.WaitGroup
		for i, d := range []struct {
			e    *env
			path string
			tok  string
		}{
			{a, "/items/1/accept", tokA}, // Beta Ltd, Beta Limited
			{b, "/items/2/reject", tokB}, // Acme Corp, ACME Inc.
		} {
			wg.Go(func() {
				<-start
				resp, err := noRedirect.PostForm(d.e.url+d.path, url.Values{"token": {d.tok}})
				if err != nil {
					t.Error(err)
					return
				}
				_ = resp.Body.Close()
				codes[i] = resp.StatusCode
			})
		}
		close(start)
		wg.Wait()
		if codes[0] != http.StatusSeeOther || codes[1] != http.StatusSeeOther {
			t.Fatalf("round %d: answers %v, want 303 and 303", round, codes)
		}
		o, err := consolidate.LoadOverrides(overrides)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.MustLink) != 1 || len(o.CannotLink) != 1 {
			t.Fatalf("round %d: the file holds %d must_link and %d cannot_link, want the two decisions answered 303: one of each",
				round, len(o.MustLink), len(o.CannotLink))
		}
	}
}

// lockOverridesFile takes the lock that every writer of the overrides
// file at path holds (the file .NAME.lock beside it), as a program that
// edits the file would, and returns its release.
func lockOverridesFile(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() { _ = f.Close() }
}

// TestServer_DecisionWaitsForTheOverridesLock: a decision made while
// another program holds the overrides file's lock and rewrites the file
// is written after it, on top of that program's edit.
func TestServer_DecisionWaitsForTheOverridesLock(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := e.token(t)
	unlock := lockOverridesFile(t, e.overrides)
	done := make(chan int, 1)
	go func() {
		resp, err := noRedirect.PostForm(e.url+"/items/1/accept", url.Values{"token": {tok}})
		if err != nil {
			t.Error(err)
			done <- 0
			return
		}
		_ = resp.Body.Close()
		done <- resp.StatusCode
	}()
	select {
	case code := <-done:
		unlock()
		t.Fatalf("the decision was answered %d while another program held the overrides file's lock", code)
	case <-time.After(500 * time.Millisecond):
	}
	// The other program's edit, written whole while it holds the lock.
	edit := "cannot_link:\n  - a: Lisbon warehouse\n    b: Lisbon depot\n    by: hand\n"
	if err := os.WriteFile(e.overrides, []byte(edit), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock()
	if code := <-done; code != http.StatusSeeOther {
		t.Fatalf("the decision: %d, want 303 once the lock is free", code)
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.CannotLink) != 1 || o.CannotLink[0].By != "hand" || len(o.MustLink) != 1 || o.MustLink[0].A != "Beta Ltd" {
		t.Errorf("the file holds %+v, want the hand edit and the decision", o)
	}
}

// TestServer_OverridesLockHeldTooLongIsAClear503: a lock held past the
// wait is answered 503 naming the lock file, and the file is untouched.
func TestServer_OverridesLockHeldTooLongIsAClear503(t *testing.T) {
	defer review.SetLockWait(200 * time.Millisecond)()
	e := newEnv(t, fixture(), review.Options{})
	tok := e.token(t)
	unlock := lockOverridesFile(t, e.overrides)
	defer unlock()
	code, _, body := e.post(t, "/items/1/accept", url.Values{"token": {tok}})
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "."+filepath.Base(e.overrides)+".lock") || !strings.Contains(body, "nothing was written") {
		t.Errorf("POST under a held lock: %d\n%s\nwant 503 naming the lock file", code, body)
	}
	if _, err := os.Stat(e.overrides); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the overrides file was written under another program's lock: %v", err)
	}
}

// TestServer_OverridesLockFileMayNotBeALink: the lock file is opened
// without following a symbolic link, so a link planted in its place
// cannot make the page create or lock a file elsewhere.
func TestServer_OverridesLockFileMayNotBeALink(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := e.token(t)
	elsewhere := filepath.Join(t.TempDir(), "target")
	if err := os.Symlink(elsewhere, filepath.Join(filepath.Dir(e.overrides), "."+filepath.Base(e.overrides)+".lock")); err != nil {
		t.Fatal(err)
	}
	code, _, body := e.post(t, "/items/1/accept", url.Values{"token": {tok}})
	if code != http.StatusInternalServerError || !strings.Contains(body, "symbolic link") || !strings.Contains(body, "nothing was written") {
		t.Errorf("POST with a linked lock file: %d\n%s\nwant 500 that says the lock file is a link", code, body)
	}
	if _, err := os.Lstat(elsewhere); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the link's target was created: %v", err)
	}
	if _, err := os.Stat(e.overrides); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the overrides file was written: %v", err)
	}
}

// TestNew_RefusesOverridesInsideTheBundle: an overrides file inside the
// bundle under review, named directly, through a link to its directory,
// or as a link into it, is refused before anything is written, and the
// bundle stays valid.
func TestNew_RefusesOverridesInsideTheBundle(t *testing.T) {
	b := writeBundle(t, fixture())
	linkDir := filepath.Join(t.TempDir(), "to-bundle")
	if err := os.Symlink(b.Dir, linkDir); err != nil {
		t.Fatal(err)
	}
	linkFile := filepath.Join(t.TempDir(), "overrides.yaml")
	if err := os.Symlink(filepath.Join(b.Dir, "manifest.json"), linkFile); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"in the bundle":           filepath.Join(b.Dir, "overrides.yaml"),
		"a bundle file":           filepath.Join(b.Dir, "manifest.json"),
		"through a linked dir":    filepath.Join(linkDir, "overrides.yaml"),
		"through latest":          filepath.Join(filepath.Dir(b.Dir), bundle.LatestLink, "overrides.yaml"),
		"a link to a bundle file": linkFile,
		"relative":                relative(t, filepath.Join(b.Dir, "overrides.yaml")),
	} {
		_, err := review.New(context.Background(), b, review.Options{Overrides: path})
		if !errors.Is(err, review.ErrOverridesInBundle) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: New(%s) = %v, want ErrOverridesInBundle naming the file", name, path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(b.Dir, "overrides.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an overrides file was written into the bundle: %v", err)
	}
	reopened, err := bundle.Open(b.Dir)
	if err != nil {
		t.Fatalf("the bundle is no longer valid: %v", err)
	}
	_ = reopened.Close()
	// Beside the bundle is fine.
	if _, err := review.New(context.Background(), b, review.Options{Overrides: filepath.Join(filepath.Dir(b.Dir), "overrides.yaml")}); err != nil {
		t.Errorf("overrides beside the bundle: %v", err)
	}
}

// relative returns path relative to the working directory.
func relative(t *testing.T, path string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}
