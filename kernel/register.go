package kernel

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// registry holds the Funcs registered by name (Register), for New.
var registry struct {
	sync.RWMutex
	funcs map[string]Func
}

// Register makes the user kernel f known to [New] by its name, so that
// New(Spec{Name: f.Name}) — the Spec f reports — returns f. This is how a model whose
// kernel is a Func is restored from its encoding without the function at hand:
// register the Func once, typically in an init function, before decoding.
//
// f.Name must be non-empty, valid UTF-8 (encodings store the name as text) and not the
// name of a built-in kernel in any case, and f.F must be non-nil; otherwise Register
// returns an error wrapping [ErrArgument] and registers nothing. Names are
// case-sensitive. Registering a name again replaces its function: a model decoded
// afterwards gets the new one. Register and New are safe for concurrent use.
func Register(f Func) error {
	switch {
	case f.Name == "":
		return fmt.Errorf("%w: Register: a Func needs a name, by which New finds it", ErrArgument)
	case !utf8.ValidString(f.Name):
		return fmt.Errorf("%w: Register: Func name %q is not valid UTF-8", ErrArgument, f.Name)
	}
	if err := Validate(f); err != nil {
		return err
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.funcs == nil {
		registry.funcs = make(map[string]Func)
	}
	registry.funcs[f.Name] = f
	return nil
}

// registered returns the Func registered under name, if any.
func registered(name string) (Func, bool) {
	registry.RLock()
	defer registry.RUnlock()
	f, ok := registry.funcs[name]
	return f, ok
}
