// Package review serves the merge-review page: a small web application
// through which a domain expert reads the merges of a bundle's merge log,
// with their evidence and neighbourhood, and accepts, rejects or splits
// them; and, beside them, the links of its link log (an entity or concept
// to a table, column or row), which they accept or reject; then the nodes
// of one name under two types, which they may join, and every extracted
// entity node, which they may give another type or mark as not an entity. Each decision
// is written at once to the overrides file (consolidate.Overrides; link
// decisions to its links: section), which every later build applies. A
// decision names the names by name (folded), except where two names of
// the item are equal once folded: then as written, with their types
// (match: surface), so that "Apple" and "apple" can be kept apart.
//
// New reads what the page needs from a bundle into memory (the merge log,
// its scored pairs, the link log, the table profiles, the entity nodes,
// their relationships and the chunks that hold their evidence), so the
// bundle can be closed once it returns.
// The Server it returns is an http.Handler, and Serve serves it on a
// listener with bounded read times:
//
//	GET  /                     the items: uncertain pairs most likely the same
//	                           first, then the rest most doubtful first (?page=N)
//	GET  /static/{name}        the page's CSS and script (embedded)
//	POST /items/{n}/accept     the pair of item n are the same: must_link;
//	                           the link of item n holds: links.must_link
//	POST /items/{n}/reject     the pair of item n are different: cannot_link;
//	                           the link of item n does not: links.cannot_link
//	POST /items/{n}/split      member (a form field) of item n stays alone: keep_apart
//	POST /items/{n}/join       the two nodes of one name under two types are one,
//	                           of type (a form field): must_link with a type
//	POST /items/{n}/type       the names of node n are of type (a form field): set_type
//	POST /items/{n}/not_entity the names of node n are not entities: not_entity
//
// Another site must not use the reviewer's browser, so every request
// passes three guards before it reaches the page (guard.go). Its Host
// must be a loopback name, the address it came in on or a name of
// Options.AllowHosts (421 otherwise), which defeats DNS rebinding. A
// request that may change state must come from the page itself: a
// Sec-Fetch-Site other than same-origin, or an Origin other than the
// request's own, is refused with 403. And every POST carries the
// server's token in a hidden field (403 without it). A malformed path,
// query or form is answered 400 or 404, a body past 64 KiB 413, one too
// slow 408. After a decision the server redirects back to
// the item. Writes are serialised, across processes too, by a flock on a
// lock file beside the overrides file (lock.go), and each re-reads the
// file under it, so hand edits and other pages' decisions are kept. An
// overrides file inside the bundle under review is refused.
//
// The page works without JavaScript; the script only adds a filter that
// hides decided items and keyboard navigation. Every name and text shown
// comes from documents or LLM output and goes through html/template's
// escaping.
package review
