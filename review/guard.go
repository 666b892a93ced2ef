package review

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// The guards below run on every request before it reaches the page. They
// stop a page of another site from using the reviewer's browser: through a
// name it controls that resolves to this machine (DNS rebinding: the
// browser then sends that name as Host, and reads the answer as its own),
// or by posting a form or a fetch to the page's address (cross-site
// request forgery).

// checkHosts validates Options.AllowHosts and returns them folded to
// lower case: each a host name or an IP address, without scheme, port or
// path.
func checkHosts(hosts []string) (map[string]bool, error) {
	out := make(map[string]bool, len(hosts))
	var errs []error
	for _, h := range hosts {
		name := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
		_, ipErr := netip.ParseAddr(name)
		switch {
		case name == "":
			errs = append(errs, errors.New("review: allowed host \"\": give a host name or an IP address"))
		case ipErr != nil && strings.ContainsAny(name, ":/?#@*[] \t"):
			errs = append(errs, fmt.Errorf("review: allowed host %q: give a bare host name or IP address, without scheme, port, path or wildcard (for example review.example.org)", h))
		default:
			out[name] = true
		}
	}
	return out, errors.Join(errs...)
}

// hostName returns the name part of a Host header: without the port, an
// IPv6 address without its brackets, in lower case.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// hostAllowed reports whether the page answers to r's Host: a loopback
// name (localhost, 127.0.0.0/8, ::1), the IP address the connection came
// in on, or a name of Options.AllowHosts. The port is not compared: a
// rebinding page differs by its name, and an SSH tunnel may forward
// another local port.
func (s *Server) hostAllowed(r *http.Request) bool {
	name := hostName(r.Host)
	if name == "" {
		return false
	}
	if name == "localhost" || s.hosts[name] {
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

// safeMethod reports whether a request with this method changes nothing.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOrigin says why a request that may change state does not come from
// the page itself, or returns "" when it may. The rule: a Sec-Fetch-Site
// header, if sent, must be same-origin; an Origin header, if sent, must be
// http:// or https:// followed by the request's Host. A request with
// neither comes from a program, not a browser (every current browser sends
// Origin on a POST): it is let through, and still needs the page's token.
func sameOrigin(r *http.Request) string {
	if site := r.Header.Values("Sec-Fetch-Site"); len(site) > 0 && (len(site) > 1 || site[0] != "same-origin") {
		return fmt.Sprintf("Sec-Fetch-Site %q: the request comes from another site, not from the review page", strings.Join(site, ", "))
	}
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return ""
	}
	// An Origin is a serialisation (RFC 6454): scheme "://" host, nothing
	// after it. Compared as text, so that no fragment, empty query, path or
	// user part that a URL parser would drop can make it match.
	if len(origins) == 1 && r.Host != "" {
		o, h := strings.ToLower(origins[0]), strings.ToLower(r.Host)
		if o == "http://"+h || o == "https://"+h {
			return ""
		}
	}
	return fmt.Sprintf("Origin %q: the request comes from another site, not from the review page at %s", strings.Join(origins, ", "), r.Host)
}
