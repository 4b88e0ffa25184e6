// Package sample is the source TestFuncs parses.
package sample

import "errors"

// New returns an error.
func New() (int, error) { return 0, errors.New("new") }

// Quiet returns none.
func Quiet() int { return 0 }

func hidden() error { return nil }

// T is a type with methods.
type T struct{}

// Add returns an error.
func (*T) Add(x []float64) error { return nil }

// Len returns none.
func (T) Len() int { return 0 }

type g[P any] struct{}

// Put is a method of an unexported generic type.
func (g[P]) Put() error { return nil }
