package repository

// Test-only access to internals, for the external tests of this package (package repository_test,
// which can use repotest).
