// Package wiretest holds what the tests of the library's binary encodings share
// (ikpca.Persistent on the frame of internal/wire): the bytes a test or a fuzzer feeds
// a decoder — an edited frame sealed again, where an encoding's fields are (frame.go) —
// and the checks every decoder must pass (check.go): a refused input is an error of the
// package's encoding kind that leaves the receiver as it was, through UnmarshalBinary
// and UnmarshalBinaryFrom alike; an accepted one is a model that encodes back to the very
// same bytes; and two models that should be one read the same, bit for bit (same.go).
// It is imported by tests only.
package wiretest
