// Package html reads HTML pages for package ingest. Importing it registers
// the reader for kind html (ingest/all does).
//
// The reader keeps a page's main text and drops what surrounds it: scripts,
// styles, navigation, page-level headers and footers, asides, forms,
// embedded frames and graphics, and anything marked hidden. When the page
// has a <main> element only its content is kept, else its <article>
// elements', else the whole body's.
//
// Headings h1 to h6 start sections whose path is the chain of headings above
// them joined by " > ", as in Markdown. Block elements end lines and
// paragraphs are separated by a blank line; white space is collapsed except
// inside <pre>. A data table becomes one line per row with its cells joined
// by " | ", written whole inside the section of the heading above it; a
// table used for layout (one that holds headings or other tables) is read as
// ordinary blocks.
//
// Pages should be UTF-8. A page that is not is decoded from the charset its
// byte order mark or <meta> declares; one that declares none is rejected.
// The text is extracted, not the file's own, so documents are not Verbatim.
package html
