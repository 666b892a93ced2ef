package sqldb

import "time"

// SetStatementTimeout sets the PostgreSQL statement timeout for a test and
// returns a function that restores it.
func SetStatementTimeout(d time.Duration) (restore func()) {
	old := statementTimeout
	statementTimeout = d
	return func() { statementTimeout = old }
}

// Redact exposes redact to the tests.
var Redact = redact
