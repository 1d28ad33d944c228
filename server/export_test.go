package server

// DoublingFragments lets the external tests build the same hostile document as limits_test.go.
var DoublingFragments = doublingFragments
