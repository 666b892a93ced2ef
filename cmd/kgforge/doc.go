// Command kgforge builds hybrid knowledge graphs from a pipeline file, loads
// them into Neo4j, verifies bundles and answers questions over them.
//
// It only wires packages together and maps errors to exit codes:
//
//	0  success
//	1  the run failed (nothing new was published)
//	2  bad usage or an invalid pipeline file
//	3  partial: some sources or chunks were rejected; see the run report
package main
