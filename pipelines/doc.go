// Package pipelines defines the pipeline file (YAML): which sources to read,
// how to chunk them, which models to use, where the bundle goes and whether
// to load Neo4j. Files are decoded strictly (an unknown field is an error),
// defaults are set before decoding, and Validate reports every problem at
// once with its field path. Example pipelines live beside this file.
package pipelines
