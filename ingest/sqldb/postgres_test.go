package sqldb_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"kgforge/ingest"
	"kgforge/ingest/sqldb"
	"kgforge/kg"
)

const secret = "S3cret-Passw0rd"

func TestPostgres_RejectsWithoutLeakingThePassword(t *testing.T) {
	ctx := context.Background()
	db := openBuild(t)
	for _, c := range []struct {
		name, dsn string
		want      []string
	}{
		{"empty", "", []string{"connection string is empty: set the environment variable the pipeline names in connection_env"}},
		{"blank", "  \n", []string{"connection string is empty"}},
		// Port 1 on loopback: refused at once.
		{"unreachable url", "postgres://kgforge:" + secret + "@127.0.0.1:1/erp?sslmode=disable&connect_timeout=5", []string{"connect to postgres", "127.0.0.1"}},
		{"unreachable keywords", "host=127.0.0.1 port=1 user=kgforge password='" + secret + "' sslmode=disable", []string{"connect to postgres"}},
		{"unparsable url", "postgres://kgforge:" + secret + "@127.0.0.1:notaport/erp", []string{"parse connection string"}},
		{"unparsable keywords", "host=127.0.0.1 password=" + secret + " port=notaport", []string{"parse connection string"}},
		{"password in query", "postgres://127.0.0.1:1/erp?user=kgforge&password=" + secret + "&sslmode=disable", []string{"connect to postgres"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.load(ctx, kg.KindPostgres, "", "crm", ingest.Options{DSN: c.dsn})
			wantRejected(t, err, append([]string{"source crm: rejected"}, c.want...)...)
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "Passw0rd") {
				t.Errorf("the error shows the password: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not on one line: %q", err)
			}
		})
	}
}

func TestPostgres_CancelIsNotARejection(t *testing.T) {
	db := openBuild(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := db.load(ctx, kg.KindPostgres, "", "crm", ingest.Options{DSN: "postgres://kgforge@127.0.0.1:1/erp?sslmode=disable"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, kg.ErrRejected) {
		t.Fatalf("error = %v, want the context's and no rejection", err)
	}
}

func TestRedact_MasksPasswords(t *testing.T) {
	odd := secret + "/#? x"
	for _, c := range []struct{ dsn, password string }{
		{"postgres://kgforge:" + secret + "@db.example:5432/erp", secret},
		{"postgresql://kgforge:" + url.PathEscape(odd) + "@db.example/erp", odd},
		{"postgres://db.example/erp?password=" + secret + "&sslmode=require", secret},
		{"postgres://db.example/erp?sslmode=require&password=" + url.QueryEscape(odd), odd},
		{"host=db.example password=" + secret + " dbname=erp", secret},
		{"host=db.example password = '" + odd + "' dbname=erp", odd},
		{"host=db.example PASSWORD=" + secret, secret},
	} {
		msg := "connect to postgres: server said " + c.password + " for " + c.dsn + "\n\tnext line"
		got := sqldb.Redact(msg, c.dsn)
		if want := "connect to postgres: server said xxxxx for xxxxx next line"; got != want {
			t.Errorf("Redact(…, %q):\n got %q\nwant %q", c.dsn, got, want)
		}
	}
}

// pgDSN is the DSN of the test server that scripts/postgres.sh starts. The
// test skips without one, unless KGFORGE_INTEGRATION says it must run.
func pgDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("KGFORGE_TEST_PG_DSN")
	if dsn != "" {
		return dsn
	}
	const hint = `scripts/postgres.sh up && eval "$(scripts/postgres.sh env)"`
	if os.Getenv("KGFORGE_INTEGRATION") == "" {
		t.Skip("KGFORGE_TEST_PG_DSN not set; run " + hint)
	}
	t.Fatal("KGFORGE_INTEGRATION is set but KGFORGE_TEST_PG_DSN is not; run " + hint)
	return ""
}

// pgExec runs statements on the server at dsn.
func pgExec(t *testing.T, dsn string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	must(t, err)
	defer func() { _ = conn.Close(ctx) }()
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func randomName(t *testing.T, prefix string) string {
	t.Helper()
	var b [6]byte
	_, err := rand.Read(b[:])
	must(t, err)
	return prefix + hex.EncodeToString(b[:])
}

// pgSchema creates a fresh schema with the fixture tables and drops it when
// the test ends.
func pgSchema(t *testing.T, dsn string) string {
	t.Helper()
	s := randomName(t, "kgforge_t_")
	t.Cleanup(func() { pgExec(t, dsn, "DROP SCHEMA "+s+" CASCADE") })
	pgExec(t, dsn,
		"CREATE SCHEMA "+s,
		`CREATE TABLE `+s+`.suppliers (
			supplier_id text PRIMARY KEY, name varchar(40), country char(2), rating numeric(3,1),
			since date, contact uuid, tags text[], profile jsonb, logo bytea, active boolean)`,
		`INSERT INTO `+s+`.suppliers VALUES
			('S1', 'Kestrel Alloys', 'GB', 3.2, '2019-04-01', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{frames,alloy}', '{"tier": 1, "city": "Leeds"}', '\x89504e47', true),
			('S2', 'Serra Components', 'ES', 4.0, 'infinity', NULL, '{}', NULL, NULL, false),
			('S3', 'Tagus Composites', 'PT', NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
		`CREATE TABLE `+s+`.purchase_orders (
			po_id bigint PRIMARY KEY, supplier_id text, qty integer, boxes smallint, weight real, price double precision,
			amount numeric(10,2), ratio numeric, ordered_at timestamp, confirmed_at timestamptz, note text)`,
		`INSERT INTO `+s+`.purchase_orders VALUES
			(1, 'S1', 20, 2, 40.5, 142.25, 1234.56, 0.5, '2025-01-08 09:30:00', '2025-01-09 10:00:00+01', 'frames TR5'),
			(2, 'S2', 30, 3, 2.5, 72, 0.10, 'NaN', '2025-01-09 14:00:00.123456', 'infinity', NULL),
			(3, 'S1', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'café ☕')`,
		`CREATE VIEW `+s+`.big_orders AS SELECT * FROM `+s+`.purchase_orders WHERE qty >= 25`,
	)
	return s
}

func TestPostgresIntegration_LoadsNamedTablesWithTypes(t *testing.T) {
	dsn := pgDSN(t)
	ctx := context.Background()
	s := pgSchema(t, dsn)
	db := openBuild(t)

	tables, err := db.load(ctx, kg.KindPostgres, "", "crm", ingest.Options{DSN: dsn, Tables: []string{s + ".suppliers", s + ".purchase_orders", s + ".big_orders"}})
	must(t, err)
	if len(tables) != 3 {
		t.Fatalf("loaded %d tables, want 3", len(tables))
	}
	sup, po, big := tables[0], tables[1], tables[2]
	for _, c := range []struct {
		tb           kg.Table
		name, origin string
		rows         int64
	}{
		{sup, "crm_" + s + "_suppliers", s + ".suppliers", 3},
		{po, "crm_" + s + "_purchase_orders", s + ".purchase_orders", 3},
		{big, "crm_" + s + "_big_orders", s + ".big_orders", 1},
	} {
		if c.tb.Name != c.name || c.tb.Origin != c.origin || c.tb.Rows != c.rows {
			t.Errorf("table %s (origin %s, %d rows), want %s, %s, %d", c.tb.Name, c.tb.Origin, c.tb.Rows, c.name, c.origin, c.rows)
		}
	}
	for _, c := range []struct {
		tb   kg.Table
		want string
	}{
		{sup, "supplier_id VARCHAR, name VARCHAR, country VARCHAR, rating DECIMAL(3,1), since DATE, contact VARCHAR, tags VARCHAR, profile VARCHAR, logo BLOB, active BOOLEAN"},
		{po, "po_id BIGINT, supplier_id VARCHAR, qty INTEGER, boxes INTEGER, weight DOUBLE, price DOUBLE, amount DECIMAL(10,2), ratio DOUBLE, ordered_at TIMESTAMP, confirmed_at TIMESTAMP WITH TIME ZONE, note VARCHAR"},
	} {
		if got := columnTypes(c.tb); got != c.want {
			t.Errorf("%s columns:\n got %s\nwant %s", c.tb.Name, got, c.want)
		}
	}
	if want := []string{"1 infinite dates or timestamps loaded as NULL"}; !slices.Equal(sup.Warnings, want) || !slices.Equal(po.Warnings, want) {
		t.Errorf("warnings = %q and %q, want %q for each", sup.Warnings, po.Warnings, want)
	}
	if c := column(t, sup, "rating"); c.Nulls != 1 || c.Min != "3.2" || c.Max != "4.0" {
		t.Errorf("rating profile = %+v", c)
	}

	S, P := `"`+sup.Name+`"`, `"`+po.Name+`"`
	for _, c := range []struct{ q, want string }{
		{"SELECT country FROM " + S + " WHERE supplier_id = 'S1'", "GB"},
		{"SELECT contact FROM " + S + " WHERE supplier_id = 'S1'", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"SELECT tags FROM " + S + " WHERE supplier_id = 'S1'", "{frames,alloy}"},
		{"SELECT profile FROM " + S + " WHERE supplier_id = 'S1'", `{"city": "Leeds", "tier": 1}`},
		{"SELECT octet_length(logo) FROM " + S + " WHERE supplier_id = 'S1'", "4"},
		{"SELECT since FROM " + S + " WHERE supplier_id = 'S1'", "2019-04-01"},
		{"SELECT count(*) FROM " + S + " WHERE since IS NULL", "2"},
		{"SELECT active FROM " + S + " WHERE supplier_id = 'S2'", "false"},
		{"SELECT sum(amount) FROM " + P, "1234.66"},
		{"SELECT sum(qty) + sum(boxes) FROM " + P, "55"},
		{"SELECT weight FROM " + P + " WHERE po_id = 2", "2.5"},
		{"SELECT isnan(ratio) FROM " + P + " WHERE po_id = 2", "true"},
		{"SELECT ordered_at FROM " + P + " WHERE po_id = 2", "2025-01-09 14:00:00.123456"},
		{"SELECT confirmed_at = TIMESTAMPTZ '2025-01-09 09:00:00+00' FROM " + P + " WHERE po_id = 1", "true"},
		{"SELECT confirmed_at IS NULL FROM " + P + " WHERE po_id = 2", "true"},
		{"SELECT note FROM " + P + " WHERE po_id = 3", "café ☕"},
	} {
		if got := queryString(t, db, c.q); got != c.want {
			t.Errorf("%s = %s, want %s", c.q, got, c.want)
		}
	}
}

func TestPostgresIntegration_LoadsAQuery(t *testing.T) {
	dsn := pgDSN(t)
	ctx := context.Background()
	s := pgSchema(t, dsn)
	db := openBuild(t)

	q := "SELECT supplier_id, count(*) AS orders, sum(amount) AS total, 1 AS Orders FROM " + s + ".purchase_orders GROUP BY supplier_id ORDER BY supplier_id"
	tables, err := db.load(ctx, kg.KindPostgres, "", "crm", ingest.Options{DSN: dsn, Query: q})
	must(t, err)
	if len(tables) != 1 || tables[0].Name != "crm" || tables[0].Origin != "" || tables[0].Rows != 2 {
		t.Fatalf("loaded %+v, want one table crm with 2 rows", tables)
	}
	// sum() of numeric is numeric without a precision: DOUBLE. The repeated
	// name (case-insensitive in DuckDB) gets a suffix.
	if got, want := columnTypes(tables[0]), "supplier_id VARCHAR, orders BIGINT, total DOUBLE, orders_2 INTEGER"; got != want {
		t.Errorf("columns = %s, want %s", got, want)
	}
	if got := queryString(t, db, "SELECT total FROM crm WHERE supplier_id = 'S1'"); got != "1234.56" {
		t.Errorf("S1 total = %s, want 1234.56", got)
	}
}

func TestPostgresIntegration_Rejects(t *testing.T) {
	dsn := pgDSN(t)
	ctx := context.Background()
	s := pgSchema(t, dsn)
	restore := sqldb.SetStatementTimeout(300 * time.Millisecond)
	t.Cleanup(restore)

	for _, c := range []struct {
		name string
		opt  ingest.Options
		want []string
	}{
		{
			"missing table",
			ingest.Options{Tables: []string{s + ".suppliers", s + ".nope"}},
			[]string{`no table "` + s + `.nope" in the database (it has `, s + ".big_orders, " + s + ".purchase_orders, " + s + ".suppliers"},
		},
		{"query that writes", ingest.Options{Query: "CREATE TABLE " + s + ".x (a int)"}, []string{"read-only transaction"}},
		{"two statements", ingest.Options{Query: "SELECT 1; SELECT 2"}, []string{"multiple commands"}},
		{"query and tables", ingest.Options{Query: "SELECT 1", Tables: []string{s + ".suppliers"}}, []string{"set either query or tables, not both"}},
		{"statement timeout", ingest.Options{Query: "SELECT pg_sleep(3)"}, []string{"statement timeout"}},
		{"bad query", ingest.Options{Query: "SELECT nope FROM " + s + ".suppliers"}, []string{"query: ", `column "nope" does not exist`}},
		{"table fails after another loaded", ingest.Options{Tables: []string{s + ".suppliers", s + ".big_orders"}}, []string{"postgres table " + s + ".big_orders", "permission denied"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := openBuild(t)
			opt := c.opt
			opt.DSN = dsn
			if c.name == "table fails after another loaded" {
				// A role that may read suppliers but not the view.
				role := randomName(t, "kgforge_r_")
				pgExec(t, dsn, "CREATE ROLE "+role+" LOGIN", "GRANT USAGE ON SCHEMA "+s+" TO "+role, "GRANT SELECT ON "+s+".suppliers TO "+role)
				t.Cleanup(func() { pgExec(t, dsn, "DROP OWNED BY "+role, "DROP ROLE "+role) })
				opt.DSN = withUser(t, dsn, role)
			}
			tables, err := db.load(ctx, kg.KindPostgres, "", "crm", opt)
			if err == nil {
				t.Fatalf("loaded %+v, want an error", tables)
			}
			wantRejected(t, err, append([]string{"source crm: rejected"}, c.want...)...)
			if left := tableNames(t, db); len(left) != 0 {
				t.Errorf("tables left behind: %v", left)
			}
		})
	}
}

func TestPostgresIntegration_LoadsEveryUserTable(t *testing.T) {
	dsn := pgDSN(t)
	ctx := context.Background()
	// A database of its own, so that nothing else is in it.
	name := randomName(t, "kgforge_t_")
	pgExec(t, dsn, "CREATE DATABASE "+name)
	t.Cleanup(func() { pgExec(t, dsn, "DROP DATABASE "+name+" WITH (FORCE)") })
	u, err := url.Parse(dsn)
	must(t, err)
	u.Path = "/" + name
	own := u.String()
	pgExec(t, own,
		"CREATE TABLE suppliers (supplier_id text, name text)",
		"INSERT INTO suppliers VALUES ('S1', 'Kestrel Alloys')",
		"CREATE SCHEMA sales",
		"CREATE TABLE sales.orders (order_id int, placed date) PARTITION BY RANGE (placed)",
		"CREATE TABLE sales.orders_2025 PARTITION OF sales.orders FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
		"INSERT INTO sales.orders VALUES (1, '2025-03-01'), (2, '2025-04-01')",
		"CREATE VIEW sales.recent AS SELECT * FROM sales.orders",
		"CREATE MATERIALIZED VIEW sales.totals AS SELECT count(*) AS n FROM sales.orders",
	)
	db := openBuild(t)
	tables, err := db.load(ctx, kg.KindPostgres, "", "crm", ingest.Options{DSN: own})
	must(t, err)
	var got []string
	for _, tb := range tables {
		got = append(got, tb.Name+"="+tb.Origin)
	}
	// Tables only: no view, no partition; schema public by its bare name.
	if want := []string{"crm_suppliers=suppliers", "crm_sales_orders=sales.orders"}; !slices.Equal(got, want) {
		t.Errorf("loaded %q, want %q", got, want)
	}
	if len(tables) == 2 && tables[1].Rows != 2 {
		t.Errorf("sales.orders rows = %d, want 2", tables[1].Rows)
	}
}

// withUser returns dsn (a URL) with another user and no password.
func withUser(t *testing.T, dsn, user string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("KGFORGE_TEST_PG_DSN must be a postgres:// URL for this test: %v", err)
	}
	u.User = url.User(user)
	return u.String()
}

func TestPostgresIntegration_CancelStopsTheQuery(t *testing.T) {
	dsn := pgDSN(t)
	db := openBuild(t)
	marker := randomName(t, "kgforge_cancel_")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	// The server sends nothing while it sleeps: only a cancel request
	// stops it before statementTimeout.
	q := "SELECT pg_sleep(60) AS " + marker
	_, err := db.load(ctx, kg.KindPostgres, "", "crm", ingest.Options{DSN: dsn, Query: q})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, kg.ErrRejected) {
		t.Fatalf("error = %v, want the context's and no rejection", err)
	}
	if left := tableNames(t, db); len(left) != 0 {
		t.Errorf("tables left behind: %v", left)
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	must(t, err)
	defer func() { _ = conn.Close(context.Background()) }()
	// The cancel request is asynchronous; give the server a moment.
	var running int
	for range 50 {
		must(t, conn.QueryRow(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()", marker).Scan(&running))
		if running == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("the query still runs on the server after the load returned")
}
