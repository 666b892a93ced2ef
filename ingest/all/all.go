package all

import (
	// Each registers its kinds with package ingest in init.
	_ "kgforge/ingest/docx"
	_ "kgforge/ingest/html"
	_ "kgforge/ingest/pdf"
	_ "kgforge/ingest/records"
	_ "kgforge/ingest/sqldb"
	_ "kgforge/ingest/tabular"
	_ "kgforge/ingest/xlsx"
)
