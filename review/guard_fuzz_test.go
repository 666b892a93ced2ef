package review

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// FuzzSameOrigin: whatever Origin and Host a client sends, a request the
// guard lets through has no Origin, or exactly the request's own.
func FuzzSameOrigin(f *testing.F) {
	for _, s := range [][2]string{
		{"http://127.0.0.1:8765", "127.0.0.1:8765"},
		{"https://review.example.org", "review.example.org"},
		{"null", "127.0.0.1:8765"},
		{"http://user@127.0.0.1:8765", "127.0.0.1:8765"},
		{"HTTP://LOCALHOST:1/", "localhost:1"},
		{"http://127.0.0.1:8765?x", "127.0.0.1:8765"},
		{"http://[::1]:8765", "[::1]:8765"},
		{"HTTP://LB#0", "lB"},
		{"http://127.0.0.1:8765?", "127.0.0.1:8765"},
		{"http://127.0.0.1:8765#", "127.0.0.1:8765"},
		{"", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, origin, host string) {
		r := &http.Request{Method: http.MethodPost, Host: host, Header: http.Header{"Origin": {origin}}}
		if sameOrigin(r) != "" {
			return
		}
		o := strings.ToLower(origin)
		if h := strings.ToLower(host); o != "http://"+h && o != "https://"+h {
			t.Errorf("Origin %q let through for Host %q", origin, host)
		}
	})
}

// FuzzHostAllowed: a Host the guard answers to names localhost, a
// loopback address, the address the request came in on, or an allowed
// host, whatever else it holds.
func FuzzHostAllowed(f *testing.F) {
	for _, h := range []string{"127.0.0.1:8765", "localhost", "[::1]:1", "attacker.example", "review.example.org:80", "192.0.2.7", "[::ffff:127.0.0.1]:2", ""} {
		f.Add(h)
	}
	s := &Server{hosts: map[string]bool{"review.example.org": true}}
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 8765}
	f.Fuzz(func(t *testing.T, host string) {
		r := (&http.Request{Host: host}).WithContext(context.WithValue(context.Background(), http.LocalAddrContextKey, local))
		if !s.hostAllowed(r) {
			return
		}
		name := hostName(host)
		ip, err := netip.ParseAddr(name)
		if name != "localhost" && name != "review.example.org" && (err != nil || (!ip.Unmap().IsLoopback() && ip.Unmap() != netip.MustParseAddr("192.0.2.7"))) {
			t.Errorf("Host %q let through", host)
		}
	})
}
