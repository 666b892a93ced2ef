package review_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"kgforge/consolidate"
	"kgforge/review"
)

// TestServer_ProgramWithTheTokenMayDecide pins a decision of the page: a
// POST with neither Origin nor Sec-Fetch-Site is a program (every current
// browser sends Origin on a POST), such as the reviewer's own script, and
// is taken when it carries the token, which only a client that can read
// the page has. Without the token it is refused and nothing is written.
func TestServer_ProgramWithTheTokenMayDecide(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	post := func(form url.Values) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, e.url+"/items/1/accept", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if req.Header.Get("Origin") != "" || req.Header.Get("Sec-Fetch-Site") != "" {
			t.Fatal("the request carries a browser's header")
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(url.Values{}); code != http.StatusForbidden {
		t.Errorf("a program without the token: %d, want 403", code)
	}
	if _, err := os.Stat(e.overrides); !os.IsNotExist(err) {
		t.Errorf("a program without the token wrote the overrides file: %v", err)
	}
	if code := post(url.Values{"token": {e.token(t)}}); code != http.StatusSeeOther {
		t.Errorf("a program with the token: %d, want 303", code)
	}
	o, err := consolidate.LoadOverrides(e.overrides)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.MustLink) != 1 || o.MustLink[0].A != "Beta Ltd" {
		t.Errorf("the program's decision is not in the file: %+v", o)
	}
}
