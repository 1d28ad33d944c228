// Package layering holds no code: its test pins the import graph of the module to the layers the
// README describes (README, "Layout"), so that an import running back up the layers fails a test
// rather than a review.
package layering
