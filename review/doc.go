// Package review will hold the merge-review web page and its HTTP handlers,
// through which a domain expert accepts or rejects the merges of a bundle's
// merge log. It has no code yet: the merge log it reads is written by
// consolidate and stored in the bundle (merges.parquet).
package review
