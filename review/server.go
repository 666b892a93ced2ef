package review

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kgforge/bundle"
	"kgforge/consolidate"
)

// Defaults of Options.
const (
	DefaultPageSize          = 50
	DefaultContextBytes      = 160
	DefaultReadTimeout       = 30 * time.Second
	DefaultReadHeaderTimeout = 10 * time.Second
)

// Limits of Serve: the body of any request (a decision's form is a few
// hundred bytes), the headers, and the time to write an answer or to keep
// an idle connection.
const (
	maxBody        = 64 << 10
	maxHeaderBytes = 16 << 10
	writeTimeout   = 60 * time.Second
	idleTimeout    = 120 * time.Second
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"f2":   func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
	"join": strings.Join,
	"add":  func(a, b int) int { return a + b },
}).ParseFS(templateFS, "templates/*.html"))

// Options configure a Server.
type Options struct {
	// Overrides is the path of the overrides file the decisions go to;
	// required. A file that does not exist yet is created by the first
	// decision; its directory must exist.
	Overrides string
	// By names who decides, written into every decision.
	By string
	// PageSize is how many items a page shows; 0 means DefaultPageSize.
	PageSize int
	// ContextBytes is how much chunk text to show on each side of an
	// evidence span; 0 means DefaultContextBytes.
	ContextBytes int
	// Logger logs each decision; nil discards.
	Logger *slog.Logger
	// Now gives the time stamped on decisions; nil means time.Now.
	Now func() time.Time
	// AllowHosts are the host names (or IP addresses), besides the
	// loopback names and the address a request came in on, that the page
	// answers to in a request's Host header: the names a browser uses to
	// reach it, when it listens on every interface or behind a proxy.
	// Every other Host is answered 421 Misdirected Request.
	AllowHosts []string
	// ReadTimeout bounds the reading of one request, headers and body,
	// in Serve; 0 means DefaultReadTimeout. Headers alone get at most
	// DefaultReadHeaderTimeout.
	ReadTimeout time.Duration
}

// Server is the review page's http.Handler. It is safe for concurrent use.
type Server struct {
	opts  Options
	data  *mergeLog
	token string
	hosts map[string]bool // Options.AllowHosts, lower case
	log   *slog.Logger
	mux   *http.ServeMux
	mu    sync.Mutex // serialises this server's changes; the file's lock (lock.go) those of every writer
}

// New reads the merge log of b and what its items show, checks that the
// overrides file can be read, and returns the server. It keeps nothing
// open: b may be closed when New returns.
func New(ctx context.Context, b *bundle.Bundle, opts Options) (*Server, error) {
	if opts.Overrides == "" {
		return nil, errors.New("review: no overrides file given")
	}
	if st, err := os.Stat(filepath.Dir(opts.Overrides)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("review: overrides file %s: its directory does not exist; create it first", opts.Overrides)
	}
	if err := outsideBundle(opts.Overrides, b); err != nil {
		return nil, err
	}
	if _, err := consolidate.LoadOverrides(opts.Overrides); err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	hosts, err := checkHosts(opts.AllowHosts)
	if err != nil {
		return nil, err
	}
	opts.PageSize = cmp.Or(opts.PageSize, DefaultPageSize)
	opts.ReadTimeout = cmp.Or(opts.ReadTimeout, DefaultReadTimeout)
	opts.ContextBytes = cmp.Or(opts.ContextBytes, DefaultContextBytes)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	data, err := readLog(ctx, b, opts.ContextBytes)
	if err != nil {
		return nil, err
	}
	var tok [16]byte
	_, _ = rand.Read(tok[:]) // crypto/rand.Read never fails
	s := &Server{opts: opts, data: data, token: hex.EncodeToString(tok[:]), hosts: hosts, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("GET /static/{name}", s.static)
	s.mux.HandleFunc("POST /items/{n}/{action}", s.decide)
	s.mux.HandleFunc("/items/{n}/{action}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		s.fail(w, http.StatusMethodNotAllowed, "%s %s: decisions are sent with POST from the review page's buttons", r.Method, r.URL.Path)
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, http.StatusNotFound, "no page %s", r.URL.Path)
	})
	return s, nil
}

// Items returns the items in the order the page shows them. The slice is
// the server's own: do not modify it.
func (s *Server) Items() []Item { return s.data.items }

// BuildID returns the build id of the bundle under review.
func (s *Server) BuildID() string { return s.data.buildID }

// ServeHTTP serves the page, its assets and the decisions. It answers
// only requests whose Host is one the page answers to (421 otherwise),
// takes a request that may change state only from the page itself (403
// otherwise), and reads at most 64 KiB of any body (413 past that).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: under no-referrer a browser sends
	// "Origin: null" with the page's own forms, which sameOrigin refuses.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if !s.hostAllowed(r) {
		s.log.Warn("review request refused", "reason", "host", "host", r.Host, "method", r.Method, "path", r.URL.Path)
		s.fail(w, http.StatusMisdirectedRequest, "this page does not answer to the host %q: open it at the address kgforge review printed, "+
			"or list the name with --allow-host", r.Host)
		return
	}
	if !safeMethod(r.Method) {
		if why := sameOrigin(r); why != "" {
			s.log.Warn("review request refused", "reason", "origin", "host", r.Host, "method", r.Method, "path", r.URL.Path,
				"origin", r.Header.Get("Origin"), "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"))
			s.fail(w, http.StatusForbidden, "%s: nothing was written; decide from the review page itself", why)
			return
		}
	}
	if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
		s.fail(w, http.StatusBadRequest, "the query %q: %v", r.URL.RawQuery, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	s.mux.ServeHTTP(w, r)
}

// static serves one of the page's embedded assets.
func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, err := fs.ReadFile(staticFS, "static/"+name)
	if !fs.ValidPath(name) || err != nil {
		s.fail(w, http.StatusNotFound, "no file /static/%s", name)
		return
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// itemView is an item with what the overrides file says of it.
type itemView struct {
	Item
	Status  Status
	Members []memberView
	// SameSurface is a pair of one surface and type as far as the merge
	// log tells (two types of one name it shows alike), which the
	// overrides file cannot tell apart; BySurface a pair whose names are
	// equal once folded, which a decision names as written, with types.
	SameSurface, BySurface bool
	// Unnamable is a data link the overrides file cannot name: no entity
	// name, or a target that does not parse.
	Unnamable bool
}

type memberView struct {
	Member
	I      int // 1-based position in the item
	Status Status
}

type pageData struct {
	BuildID, Overrides, By, Token string
	RankedBy                      string // what the uncertain pairs are ranked by (see likelihood)
	Probability                   bool   // RankedBy is a probability, shown as "likely the same"
	OverridesError                string
	Counts                        string
	Items                         []itemView
	Types                         []string // the bundle's entity types, offered for a type field
	Total, First, Last            int
	Page, Pages, Prev, Next       int
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	items := s.data.items
	pages := max(1, (len(items)+s.opts.PageSize-1)/s.opts.PageSize)
	page := 1
	q := r.URL.Query()
	for k, v := range q {
		if k != "page" || len(v) > 1 {
			s.fail(w, http.StatusBadRequest, "the query %q: the page takes one parameter, page=N", r.URL.RawQuery)
			return
		}
	}
	if p := q.Get("page"); q.Has("page") {
		n, err := strconv.Atoi(p)
		switch {
		case err != nil || n < 1 || strconv.Itoa(n) != p:
			s.fail(w, http.StatusBadRequest, "page %q: want a page number from 1", p)
			return
		case n > pages:
			s.fail(w, http.StatusNotFound, "page %d: there are %d pages", n, pages)
			return
		}
		page = n
	}
	first := (page - 1) * s.opts.PageSize
	last := min(len(items), first+s.opts.PageSize)
	d := pageData{
		BuildID: s.data.buildID, Overrides: s.opts.Overrides, By: s.opts.By, Token: s.token, RankedBy: s.data.rankedBy, Probability: s.data.rankedBy == rankedByScore,
		Total: len(items), First: first + 1, Last: last, Page: page, Pages: pages, Types: s.data.types,
	}
	if page > 1 {
		d.Prev = page - 1
	}
	if page < pages {
		d.Next = page + 1
	}
	o, err := consolidate.LoadOverrides(s.opts.Overrides)
	if err != nil {
		d.OverridesError = err.Error()
		o = &consolidate.Overrides{}
	} else {
		d.Counts = fmt.Sprintf("%d must_link, %d cannot_link, %d keep_apart, %d rename, %d set_type, %d not_entity",
			len(o.MustLink), len(o.CannotLink), len(o.KeepApart), len(o.Rename), len(o.SetType), len(o.NotEntity))
		if o.Links != nil {
			d.Counts += fmt.Sprintf("; links: %d must_link, %d cannot_link", len(o.Links.MustLink), len(o.Links.CannotLink))
		}
	}
	for _, it := range items[first:last] {
		v := itemView{Item: it}
		switch it.Kind {
		case KindPair:
			v.Status = pairStatus(o, it.Members[0], it.Members[1])
			v.SameSurface = sameSurface(it.Members[0], it.Members[1])
			v.BySurface = pairEntry(it.Members[0], it.Members[1], consolidate.Decision{}).Match == consolidate.MatchSurface
		case KindLink:
			v.Status = linkStatus(o, it.DataLink.SrcName, it.DataLink.Target)
			v.Unnamable = linkProblem(it.DataLink) != ""
		case KindJoin:
			v.Status = joinStatus(o, it.Members[0], it.Members[1])
		case KindNode:
			v.Status = nodeStatus(o, it)
		}
		for i, m := range it.Members {
			v.Members = append(v.Members, memberView{Member: m, I: i + 1, Status: memberStatus(o, m)})
		}
		d.Items = append(d.Items, v)
	}
	s.render(w, http.StatusOK, "page.html", d)
}

// The actions of POST /items/{n}/{action}.
const (
	actionAccept = "accept"
	actionReject = "reject"
	actionSplit  = "split"
	// Of entities.go's items: join a join item's two nodes; give a node
	// item's node a type; mark its names as not entities.
	actionJoin      = "join"
	actionType      = "type"
	actionNotEntity = "not_entity"
)

func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.fail(w, formErrorCode(err), "read the form: %v", err)
		return
	}
	if tok := r.PostForm.Get("token"); subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
		s.fail(w, http.StatusForbidden, "the form's token is missing or stale (was the server restarted?): reload the review page and decide again")
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > len(s.data.items) || strconv.Itoa(n) != r.PathValue("n") {
		s.fail(w, http.StatusNotFound, "no item %q: this review has items 1 to %d", r.PathValue("n"), len(s.data.items))
		return
	}
	it := s.data.items[n-1]
	d := consolidate.Decision{By: s.opts.By, At: s.opts.Now().UTC().Format(time.RFC3339), Note: strings.TrimSpace(r.PostForm.Get("note"))}
	action := r.PathValue("action")
	var apply func(*consolidate.Overrides)
	var logArgs []any
	switch action {
	case actionAccept, actionReject:
		if it.Kind == KindLink {
			l := it.DataLink
			if why := linkProblem(l); why != "" {
				s.fail(w, http.StatusConflict, "item %d: %s, so the overrides file cannot name the link: nothing was written", n, why)
				return
			}
			apply = func(o *consolidate.Overrides) {
				if action == actionAccept {
					o.AcceptLink(l.SrcName, l.Target, d)
				} else {
					o.RejectLink(l.SrcName, l.Target, d)
				}
			}
			logArgs = []any{"entity", l.SrcName, "target", l.Target, "type", l.Type}
			break
		}
		if it.Kind != KindPair {
			s.fail(w, http.StatusBadRequest, "item %d is a node, not a pair: %s", n, otherActions(it.Kind))
			return
		}
		a, b := it.Members[0], it.Members[1]
		if sameSurface(a, b) {
			s.fail(w, http.StatusConflict, "%q and %q are one surface of one type as far as the merge log tells, "+
				"so the overrides file cannot tell them apart: nothing was written", a.Name, b.Name)
			return
		}
		entry := pairEntry(a, b, d)
		apply = func(o *consolidate.Overrides) {
			if action == actionAccept {
				o.Accept(entry)
			} else {
				o.Reject(entry)
			}
		}
		logArgs = []any{"a", a.Name, "b", b.Name, "match", string(entry.Match)}
	case actionSplit:
		if it.Kind == KindLink {
			s.fail(w, http.StatusBadRequest, "item %d is a link, not a node: accept or reject it instead", n)
			return
		}
		if it.Kind != KindCluster {
			s.fail(w, http.StatusBadRequest, "item %d is not a node of several names: %s", n, otherActions(it.Kind))
			return
		}
		member := r.PostForm.Get("member")
		if member == "" {
			s.fail(w, http.StatusBadRequest, "split item %d: the form has no member", n)
			return
		}
		i := slices.IndexFunc(it.Members, func(m Member) bool { return m.Name == member })
		if i < 0 {
			s.fail(w, http.StatusBadRequest, "split item %d: %q is not one of its members", n, member)
			return
		}
		entry := splitEntry(it, it.Members[i], d)
		apply = func(o *consolidate.Overrides) { o.Split(entry) }
		logArgs = []any{"member", member, "match", string(entry.Match)}
	case actionJoin, actionType, actionNotEntity:
		var msg string
		apply, logArgs, msg = entityDecision(it, action, strings.TrimSpace(r.PostForm.Get("type")), d)
		if msg != "" {
			s.fail(w, http.StatusBadRequest, "item %d: %s: nothing was written", n, msg)
			return
		}
	default:
		s.fail(w, http.StatusNotFound, "unknown action %q: use accept, reject, split, join, type or not_entity", action)
		return
	}
	if err := s.change(r.Context(), apply); err != nil {
		var ce *conflictError
		var be *lockBusyError
		switch {
		case errors.As(err, &ce):
			s.fail(w, http.StatusConflict, "%v", err)
		case errors.As(err, &be):
			s.fail(w, http.StatusServiceUnavailable, "%v", err)
		default:
			s.fail(w, http.StatusInternalServerError, "%v", err)
		}
		return
	}
	s.log.Info("review decision", append([]any{"item", n, "action", action, "by", d.By, "overrides", s.opts.Overrides}, logArgs...)...)
	page := (n-1)/s.opts.PageSize + 1
	http.Redirect(w, r, fmt.Sprintf("/?page=%d#item-%d", page, n), http.StatusSeeOther)
}

// formErrorCode is the status for a form that could not be read: too
// large, too slow, or malformed.
func formErrorCode(err error) int {
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout
	default:
		return http.StatusBadRequest
	}
}

// conflictError is a decision that the overrides file cannot take as it
// is: it cannot be read, or the decision contradicts it.
type conflictError struct{ err error }

func (e *conflictError) Error() string { return e.err.Error() }
func (e *conflictError) Unwrap() error { return e.err }

// change applies fn to the overrides file, re-read under its lock (lock.go)
// so that hand edits and the decisions of other review pages on the same
// file are kept, and saves it atomically before the lock is released.
func (s *Server) change(ctx context.Context, fn func(*consolidate.Overrides)) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lock, err := lockOverrides(ctx, s.opts.Overrides)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := lock.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("release the overrides file's lock: %w", cerr)
		}
	}()
	o, err := consolidate.LoadOverrides(s.opts.Overrides)
	if err != nil {
		return &conflictError{fmt.Errorf("nothing was written: %w; fix the file by hand and decide again", err)}
	}
	fn(o)
	if err := o.Validate(); err != nil {
		return &conflictError{fmt.Errorf("nothing was written: the decision contradicts the overrides file %s: %w", s.opts.Overrides, err)}
	}
	return o.Save(s.opts.Overrides)
}

type errorData struct {
	Code    int
	Status  string
	Message string
}

// fail answers with an error page that says what was wrong.
func (s *Server) fail(w http.ResponseWriter, code int, format string, args ...any) {
	s.render(w, code, "error.html", errorData{Code: code, Status: http.StatusText(code), Message: fmt.Sprintf(format, args...)})
}

func (s *Server) render(w http.ResponseWriter, code int, name string, data any) {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		s.log.Error("review render", "template", name, "err", err)
		http.Error(w, "render the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = buf.WriteTo(w) // an error means the client went away
}
