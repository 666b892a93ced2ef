// Package docx reads Word documents (Office Open XML, .docx) for package
// ingest. Importing it registers the reader for kind docx (ingest/all does).
//
// A DOCX file is a zip container. The reader checks it against the source's
// limits (ingest.CheckZip) before it reads anything, and reads its parts
// with a bound whatever their headers declare, so a zip bomb is refused
// rather than expanded. It reads word/document.xml, streaming its XML, and
// word/styles.xml when present to know which styles are headings.
//
// Each paragraph becomes a line of text: runs' text, tabs and line breaks
// kept, deleted tracked changes and duplicate fallback content left out.
// Paragraphs are separated by a blank line, items of a list by a newline. A
// paragraph whose style is a heading (Heading 1 to Heading 9, whatever the
// language of Word that wrote it, or a style or paragraph with an outline
// level) starts a section; a Title starts one above Heading 1. A section's
// path is the chain of headings above it joined by " > ", as in Markdown. A
// table becomes one line per row with its cells joined by " | ", written
// whole inside the section of the heading above it.
//
// Headers, footers, footnotes and comments, kept in other parts, are not
// read. The text is extracted, not the file's own, so documents are not
// Verbatim.
package docx
