// Package all registers every reader and table loader of kgforge: import it
// for its side effects, as database/sql programs import their drivers.
package all
