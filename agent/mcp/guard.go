package mcp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// The guard runs before every HTTP request reaches the MCP handler. It
// stops a web page from calling the tools through the user's browser: by a
// name it controls that resolves to this machine (DNS rebinding: the
// browser then sends that name as Host), or by a cross-site fetch to the
// server's address. The same rules as the review page's (review/guard.go).

// CheckListen refuses an address that is not loopback unless remote is
// set: the server has no authentication, so it is for this machine only.
func CheckListen(addr string, remote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp address %q: give HOST:PORT, for example 127.0.0.1:8765: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	switch {
	case err != nil && !remote:
		return fmt.Errorf("mcp address %q: give a loopback IP address (127.0.0.1 or [::1]) or localhost", addr)
	case err == nil && !ip.Unmap().IsLoopback() && !remote:
		return fmt.Errorf("mcp address %q is not loopback: the server has no authentication; bind 127.0.0.1, or pass --allow-remote if a proxy in front of it authenticates", addr)
	}
	return nil
}

// ErrForbidden is the reason a guarded request was refused.
var ErrForbidden = errors.New("forbidden")

func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := check(r); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// check says why r may not reach the handler, or returns nil.
func check(r *http.Request) error {
	if !hostAllowed(r) {
		return fmt.Errorf("%w: Host %q is neither a loopback name nor the address the server listens on", ErrForbidden, r.Host)
	}
	if site := r.Header.Values("Sec-Fetch-Site"); len(site) > 0 && (len(site) > 1 || (site[0] != "same-origin" && site[0] != "none")) {
		return fmt.Errorf("%w: Sec-Fetch-Site %q: the request comes from another site", ErrForbidden, strings.Join(site, ", "))
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return nil // a program, not a browser
	}
	if len(origins) == 1 {
		u, err := url.Parse(origins[0])
		if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.User == nil && u.Path == "" && strings.EqualFold(u.Host, r.Host) {
			return nil
		}
	}
	return fmt.Errorf("%w: Origin %q: the request comes from another site, not from %s", ErrForbidden, strings.Join(origins, ", "), r.Host)
}

// hostAllowed reports whether r's Host is a loopback name (localhost,
// 127.0.0.0/8, ::1) or the IP address the connection came in on.
func hostAllowed(r *http.Request) bool {
	name := r.Host
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	if name == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(name)
	if err != nil {
		return false
	}
	if ip = ip.Unmap(); ip.IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	bound, err := netip.ParseAddrPort(local.String())
	return err == nil && bound.Addr().Unmap() == ip
}
