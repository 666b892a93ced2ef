package review_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"kgforge/review"
)

// rawReq is a request written byte for byte, so that Host, Origin and
// the path are exactly what a forging client would send.
type rawReq struct {
	method, target, host string
	header               map[string][]string
	body                 string
}

// failsafe ends a test whose server never answers; it is not a timing
// assertion, every answer expected here comes at once or after a
// ReadTimeout of a fraction of a second.
const failsafe = 30 * time.Second

// raw sends req on a new connection and returns the status and body.
func (e *env) raw(t *testing.T, req rawReq) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(failsafe))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", req.method, req.target, req.host)
	for k, vs := range req.header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	if req.method != "GET" {
		fmt.Fprintf(&b, "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n", len(req.body))
	}
	b.WriteString("\r\n" + req.body)
	if _, err := io.WriteString(c, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s (Host %s): %v", req.method, req.target, req.host, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// untouched fails t if a refused request wrote the overrides file.
func (e *env) untouched(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(e.overrides); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused request wrote the overrides file (stat: %v)", err)
	}
}

// TestServerRefusesForeignHosts is the DNS-rebinding path: a page of
// attacker.example whose name now resolves to 127.0.0.1 makes the
// browser send Host: attacker.example. It must get neither the page nor
// its token, and cannot decide with a token it learnt elsewhere.
func TestServerRefusesForeignHosts(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{AllowHosts: []string{"review.example.org"}})
	tok := e.token(t)
	_, port, _ := net.SplitHostPort(e.addr)
	form := url.Values{"token": {tok}}.Encode()
	for _, host := range []string{
		"attacker.example", "attacker.example:" + port, "ATTACKER.example:" + port,
		"127.0.0.1.attacker.example:" + port, "localhost.attacker.example:" + port, "sub.localhost:" + port,
		"review.example.org.attacker.example:" + port, "attacker.example.:" + port, "0.0.0.0:" + port,
	} {
		t.Run(host, func(t *testing.T) {
			for _, req := range []rawReq{
				{method: "GET", target: "/", host: host},
				{method: "GET", target: "/static/review.js", host: host},
				{method: "POST", target: "/items/1/accept", host: host, body: form},
				{
					method: "POST", target: "/items/1/accept", host: host, body: form,
					header: map[string][]string{"Origin": {"http://" + host}, "Sec-Fetch-Site": {"same-origin"}},
				},
			} {
				code, body := e.raw(t, req)
				if code != http.StatusMisdirectedRequest || !strings.Contains(body, "does not answer to the host") {
					t.Errorf("%s %s = %d, want 421\n%s", req.method, req.target, code, body)
				}
				if strings.Contains(body, tok) {
					t.Errorf("%s %s gave the token to Host %s", req.method, req.target, host)
				}
			}
		})
	}
	e.untouched(t)
}

func TestServerAnswersLoopbackAndAllowedHosts(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{AllowHosts: []string{"Review.example.org", "192.0.2.7"}})
	_, port, _ := net.SplitHostPort(e.addr)
	for _, host := range []string{
		e.addr, "localhost:" + port, "LOCALHOST:" + port,
		"localhost:9000", // an SSH tunnel from another local port
		"127.0.0.2:" + port, "[::1]:" + port, "localhost",
		"review.example.org:" + port, "REVIEW.EXAMPLE.ORG", "192.0.2.7:" + port,
	} {
		if code, body := e.raw(t, rawReq{method: "GET", target: "/", host: host}); code != http.StatusOK {
			t.Errorf("GET / with Host %s = %d\n%s", host, code, body)
		}
	}
}

// TestServerRefusesCrossOriginDecisions is cross-site request forgery
// with the token in hand: a request that may change state must come from
// the page itself, whatever it carries.
func TestServerRefusesCrossOriginDecisions(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	_, port, _ := net.SplitHostPort(e.addr)
	form := url.Values{"token": {e.token(t)}}.Encode()
	self := "http://" + e.addr
	cases := map[string]map[string][]string{
		"foreign origin":               {"Origin": {"http://attacker.example"}},
		"foreign origin, same port":    {"Origin": {"http://attacker.example:" + port}},
		"null origin":                  {"Origin": {"null"}},
		"localhost is another origin":  {"Origin": {"http://localhost:" + port}},
		"another port":                 {"Origin": {"http://127.0.0.1:1"}},
		"origin with a path":           {"Origin": {self + "/x"}},
		"origin with user":             {"Origin": {"http://user@" + e.addr}},
		"origin with a fragment":       {"Origin": {self + "#0"}},
		"origin with an empty query":   {"Origin": {self + "?"}},
		"two origins":                  {"Origin": {self, "http://attacker.example"}},
		"cross-site":                   {"Origin": {self}, "Sec-Fetch-Site": {"cross-site"}},
		"same-site":                    {"Origin": {self}, "Sec-Fetch-Site": {"same-site"}},
		"none":                         {"Origin": {self}, "Sec-Fetch-Site": {"none"}},
		"cross-site without origin":    {"Sec-Fetch-Site": {"cross-site"}},
		"foreign origin, same-origin?": {"Origin": {"http://attacker.example"}, "Sec-Fetch-Site": {"same-origin"}},
	}
	for name, header := range cases {
		t.Run(name, func(t *testing.T) {
			for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
				code, body := e.raw(t, rawReq{method: method, target: "/items/1/accept", host: e.addr, header: header, body: form})
				if code != http.StatusForbidden || !strings.Contains(body, "comes from another site") {
					t.Errorf("%s = %d, want 403\n%s", method, code, body)
				}
			}
		})
	}
	e.untouched(t)
}

// TestServerTakesSameOriginAndProgramDecisions: the page's own form (as
// a browser sends it), and a program that sends neither Origin nor
// Sec-Fetch-Site but has the token, may decide.
func TestServerTakesSameOriginAndProgramDecisions(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	tok := e.token(t)
	self := "http://" + e.addr
	for _, c := range []struct {
		name   string
		header map[string][]string
		token  string
		code   int
	}{
		{"browser form", map[string][]string{"Origin": {self}, "Sec-Fetch-Site": {"same-origin"}}, tok, http.StatusSeeOther},
		{"older browser", map[string][]string{"Origin": {self}}, tok, http.StatusSeeOther},
		{"behind a TLS proxy", map[string][]string{"Origin": {"https://" + e.addr}}, tok, http.StatusSeeOther},
		{"program", nil, tok, http.StatusSeeOther},
		{"program without the token", nil, "", http.StatusForbidden},
		{"browser form without the token", map[string][]string{"Origin": {self}, "Sec-Fetch-Site": {"same-origin"}}, "", http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.raw(t, rawReq{method: "POST", target: "/items/1/accept", host: e.addr, header: c.header, body: url.Values{"token": {c.token}}.Encode()})
			if code != c.code {
				t.Errorf("POST = %d, want %d\n%s", code, c.code, body)
			}
		})
	}
}

// TestServeBoundsSlowAndLargeRequests: a client that trickles its
// headers or its body, or sends a large body, is cut off and writes
// nothing.
func TestServeBoundsSlowAndLargeRequests(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{ReadTimeout: 200 * time.Millisecond})
	form := url.Values{"token": {e.token(t)}}.Encode()

	t.Run("slow body", func(t *testing.T) {
		head := fmt.Sprintf("POST /items/1/accept HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", e.addr, len(form)+100)
		status, err := stall(t, e.addr, head+form)
		if err != nil {
			t.Fatalf("the server held a request whose body never ended: %v", err)
		}
		if status != http.StatusRequestTimeout {
			t.Errorf("slow body = %d, want 408", status)
		}
	})
	t.Run("slow headers", func(t *testing.T) {
		_, err := stall(t, e.addr, "GET / HTTP/1.1\r\nHost: "+e.addr+"\r\nX-Slow: ")
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("the server held a request whose headers never ended: %v", err)
		}
	})
	t.Run("large headers", func(t *testing.T) {
		code, _ := e.raw(t, rawReq{method: "GET", target: "/", host: e.addr, header: map[string][]string{"X-Big": {strings.Repeat("x", 64<<10)}}})
		if code != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("64 KiB of headers = %d, want 431", code)
		}
	})
	t.Run("large body", func(t *testing.T) {
		big := form + "&note=" + strings.Repeat("x", 1<<20)
		code, body := e.raw(t, rawReq{method: "POST", target: "/items/1/accept", host: e.addr, body: big})
		if code != http.StatusRequestEntityTooLarge {
			t.Errorf("a 1 MiB form = %d, want 413\n%s", code, body)
		}
	})
	e.untouched(t)
}

// stall writes a request that is not complete and waits for the server's
// answer, or for it to close the connection.
func stall(t *testing.T, addr, partial string) (status int, err error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(failsafe))
	if _, err := io.WriteString(c, partial); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, resp.Body.Close()
}

// TestServerAnswersMalformedRequestsWith4xx: bad escapes, unknown ids and
// parameters are the client's mistake, never a 500.
func TestServerAnswersMalformedRequestsWith4xx(t *testing.T) {
	e := newEnv(t, fixture(), review.Options{})
	form := url.Values{"token": {e.token(t)}}.Encode()
	for _, c := range []struct {
		method, target string
		code           int
		says           string
	}{
		{"GET", "/static/%ff", http.StatusNotFound, "no file /static/"},
		{"GET", "/static/%00", http.StatusNotFound, "no file /static/"},
		{"GET", "/static/", http.StatusNotFound, "no page /static/"},
		{"GET", "/static/nothing.css", http.StatusNotFound, "no file /static/nothing.css"},
		{"GET", "/static/..%2fserver.go", http.StatusNotFound, "no file"},
		{"GET", "/static/a/b", http.StatusNotFound, "no page"},
		{"GET", "/%zz", http.StatusBadRequest, ""},
		{"GET", "/?%zz", http.StatusBadRequest, "the query"},
		{"GET", "/?page=%zz", http.StatusBadRequest, "the query"},
		{"GET", "/?page=%ff", http.StatusBadRequest, "want a page number"},
		{"GET", "/?page=", http.StatusBadRequest, "want a page number"},
		{"GET", "/?page=01", http.StatusBadRequest, "want a page number"},
		{"GET", "/?page=+1", http.StatusBadRequest, "want a page number"},
		{"GET", "/?page=99999999999999999999", http.StatusBadRequest, "want a page number"},
		{"GET", "/?page=1&page=1", http.StatusBadRequest, "one parameter"},
		{"GET", "/?pages=1", http.StatusBadRequest, "one parameter"},
		{"POST", "/items/%ff/accept", http.StatusNotFound, "no item"},
		{"POST", "/items/01/accept", http.StatusNotFound, "no item"},
		{"POST", "/items/+1/accept", http.StatusNotFound, "no item"},
		{"POST", "/items/-1/accept", http.StatusNotFound, "no item"},
		{"POST", "/items/99999999999999999999/accept", http.StatusNotFound, "no item"},
		{"POST", "/items/1%2f2/accept", http.StatusNotFound, "no item"},
		{"POST", "/items/1/%ff", http.StatusNotFound, "unknown action"},
		{"POST", "/items/1/accept?%zz", http.StatusBadRequest, "the query"},
	} {
		code, body := e.raw(t, rawReq{method: c.method, target: c.target, host: e.addr, body: form})
		if code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s %s = %d, want %d saying %q\n%s", c.method, c.target, code, c.code, c.says, body)
		}
	}
	e.untouched(t)
}

func TestNewRefusesBadAllowHosts(t *testing.T) {
	b := writeBundle(t, fixture())
	overrides := t.TempDir() + "/overrides.yaml"
	for _, h := range []string{"", "http://review.example.org", "review.example.org:8765", "*.example.org", "review.example.org/x", "a b"} {
		_, err := review.New(t.Context(), b, review.Options{Overrides: overrides, AllowHosts: []string{h}})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("allowed host %q", h)) {
			t.Errorf("AllowHosts %q: err = %v", h, err)
		}
	}
	if _, err := review.New(t.Context(), b, review.Options{Overrides: overrides, AllowHosts: []string{"review.example.org", "192.0.2.7", "[2001:db8::1]", "2001:db8::2"}}); err != nil {
		t.Errorf("good hosts refused: %v", err)
	}
}
