package tabular

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"kgforge/ingest"
	"kgforge/internal/duck"
	"kgforge/kg"
)

func init() {
	ingest.RegisterTable(kg.KindParquet, parquetLoader{})
}

// parquetLoader loads a Parquet file with DuckDB's read_parquet: the file
// carries its own schema, so there is nothing to detect or repair.
type parquetLoader struct{}

var _ ingest.TableLoader = parquetLoader{}

func (parquetLoader) Load(ctx context.Context, db *sql.DB, in ingest.TableInput) ([]ingest.Loaded, error) {
	name := in.Name(in.Base)
	rows, err := duck.LoadParquet(ctx, db, name, in.Path)
	if err != nil {
		if ie, ok := errors.AsType[*duck.InputError](err); ok {
			return nil, fmt.Errorf("source %s: %w: %s", in.Source.URI, kg.ErrRejected, strings.ReplaceAll(ie.Message(), in.Path, in.Source.URI))
		}
		return nil, fmt.Errorf("source %s: %w", in.Source.URI, err)
	}
	return []ingest.Loaded{{Name: name, Rows: rows}}, nil
}
