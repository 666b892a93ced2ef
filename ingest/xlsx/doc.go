// Package xlsx loads Excel workbooks (.xlsx) into the build's DuckDB for
// package ingest: importing it registers a table loader for kg.KindXLSX
// (ingest/all does). It is kgforge's one importer of
// github.com/xuri/excelize/v2.
//
// Each sheet, or each one Options.Sheets names (compared without case; a
// name the workbook lacks rejects the source with the list of its sheets),
// becomes one table named by TableInput.Name(base + "_" + sheet), with the
// sheet's name as Loaded.Origin. Empty sheets are skipped; a workbook with no
// sheet that holds data is rejected.
//
// Before excelize reads it, the file is opened with archive/zip and
// ingest.CheckZip refuses a zip bomb by its declared sizes and ratios
// (archive/zip then refuses any entry that expands past its declared size).
// excelize is bounded by Limits.MaxUnzipped; it holds a worksheet or the
// shared strings in memory only up to 16 MiB, and streams bigger ones from
// temporary files that are removed when the load ends (the other parts of
// the package it reads whole). Rows are streamed with excelize's row
// iterator, never read whole.
//
// Header. The first non-empty row is the header, except for titles: rows
// with one value above the first row with several are skipped with a
// warning, unless that row holds a number (it is data then) or the value is
// merged over only part of its width (it labels a group of columns then). A header cell merged over several
// columns names each of them after its value with _1, _2, …; when the row
// right below holds labels (no numbers) only under such merges or under
// blank header cells, it is a second header row and each column is named
// "group_sub". Blank names become column_N and repeated ones (regardless of
// case, as DuckDB compares them) name_2, name_3. Merged ranges are read from
// the end of the worksheet part with a streaming scan, since excelize's
// GetMergeCells would decode the whole sheet into memory. Merges in data
// rows are not filled: only the first cell of a merge holds its value.
//
// Values. Formula cells load their cached values (the values Excel saved);
// nothing is recalculated, and a formula with no cached value is NULL, as
// are Excel's error values (#DIV/0!, #N/A, …), which are counted in a
// warning. excelize renders each cell with its number format; before
// reading, every format of the workbook is rewritten in memory so that date
// formats render as ISO dates (yyyy-mm-dd), date-time formats as ISO
// timestamps (yyyy-mm-dd hh:mm:ss), and numbers as stored. So a
// cell shown as "03/04/25" loads as 2025-03-04 and one shown as "1,234.50 €"
// or "12.5%" loads as 1234.5 or 0.125. Text and time-of-day formats are kept.
// Every column is appended as VARCHAR through DuckDB's Appender (empty cells
// are NULL) and then typed by duck.InferTypes: BIGINT, DOUBLE, BOOLEAN,
// DATE or TIMESTAMP when every value casts, else VARCHAR.
//
// Rows. Empty rows are skipped. A row shorter than the header is padded with
// NULLs; cells of a row outside the header's columns are dropped with a
// warning that names the sheet and the row ("sheet Orders row 17: 2 cells
// beyond the header dropped"; after 20 such rows a sheet sums up the rest).
//
// Totals. A row that totals the rows above it is not data: loaded, it would
// count every value twice in a sum. It is left out of the table with a
// warning that names the sheet, the row and why ("sheet Scrap row 7: row of
// totals left out of the table (label "total", E7 =SUM(E3:E6))"; after 20
// a sheet sums up the rest). A row is a total when either
//   - one of its cells in the table's columns holds a formula that is SUM or
//     SUBTOTAL (any function number) of cells and ranges of its own column
//     above it and nothing else: SUM(E3:E6), SUBTOTAL(9,E2:E5), SUM(E7,E12).
//     Formulas are read from the worksheet part, which is decoded a second
//     time for this only when it holds the text SUM( or SUBTOTAL(; or
//   - its first value in the table's columns is a label of at most three
//     words of which one is a total word, and every other value is a number
//     (at least one) or an error value. The total words (totalWords) are
//     English total, totals, subtotal, subtotals, sum; German gesamt,
//     insgesamt, summe, gesamtsumme, zwischensumme, endsumme; French somme;
//     Italian totale, totali, subtotale; Spanish suma; Portuguese soma;
//     Dutch totaal, subtotaal, eindtotaal. Words are split at every
//     character that is neither a letter nor a digit, so "Sub-total:",
//     "Sous-total", "Grand Total (EUR)" and "Porto Total" are labels.
//
// A data row that holds the word elsewhere (a defect "total loss" beside a
// batch id) has other text, so it stays.
//
// Failures. A file that is not a workbook, is encrypted (encrypted workbooks
// are not zip containers), is corrupt (a worksheet part that fails its CRC
// included) or that excelize cannot read is rejected: the error wraps
// kg.ErrRejected and names the source. A file that is no zip container is
// told by how it starts: empty, an OLE2 file (a legacy .xls or an encrypted
// .xlsx: save it as .xlsx without a password), a zip whose directory at the
// end is missing (truncated), or something else. A failed load leaves no table of its
// source: the tables of sheets already loaded are dropped.
package xlsx
