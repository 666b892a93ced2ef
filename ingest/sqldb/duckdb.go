package sqldb

import (
	"context"
	"database/sql"
	"errors"

	"kgforge/ingest"
	"kgforge/internal/duck"
)

type duckdbLoader struct{}

var _ ingest.TableLoader = duckdbLoader{}

func (duckdbLoader) Load(ctx context.Context, db *sql.DB, in ingest.TableInput) (loaded []ingest.Loaded, err error) {
	a, err := duck.AttachReadOnly(ctx, db, in.Path)
	if err != nil {
		return nil, rejected(ctx, in, err)
	}
	defer func() {
		if derr := a.Close(); derr != nil && err == nil {
			err = rejected(ctx, in, derr)
		}
		if err != nil {
			err = errors.Join(err, dropLoaded(ctx, db, loaded))
			loaded = nil
		}
	}()
	refs, err := a.Tables(ctx)
	if err != nil {
		return nil, rejected(ctx, in, err)
	}
	have := make([]tableRef, len(refs))
	for i, r := range refs {
		have[i] = tableRef{schema: r.Schema, name: r.Name, all: !r.View}
	}
	tables, err := pick(have, in.Options.Tables, "main")
	if err != nil {
		return nil, rejected(ctx, in, err)
	}
	for _, t := range tables {
		origin := t.origin("main")
		name := in.Name(tableWant(in.Base, origin))
		n, err := a.CopyTable(ctx, name, duck.TableRef{Schema: t.schema, Name: t.name})
		if err != nil {
			return loaded, rejected(ctx, in, err)
		}
		loaded = append(loaded, ingest.Loaded{Name: name, Origin: origin, Rows: n})
	}
	return loaded, nil
}
