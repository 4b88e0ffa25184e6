package kpca

import "reflect"

// isNil reports whether x is nil or holds a nil pointer: a typed nil such as
// (*mat.Dense)(nil), whose methods would panic.
func isNil(x any) bool {
	if x == nil {
		return true
	}
	v := reflect.ValueOf(x)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
