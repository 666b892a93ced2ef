package tabular

import (
	"context"
	"database/sql"
	"fmt"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func init() {
	ingest.RegisterTable(kg.KindCSV, csvLoader{})
}

type csvLoader struct{}

var _ ingest.TableLoader = csvLoader{}

func (csvLoader) Load(ctx context.Context, db *sql.DB, in ingest.TableInput) ([]ingest.Loaded, error) {
	name := in.Name(in.Base)
	rows, err := duck.LoadCSV(ctx, db, name, in.Path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w: %w", in.Source.URI, kg.ErrRejected, err)
	}
	return []ingest.Loaded{{Name: name, Rows: rows}}, nil
}
