package certstore

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Factory makes a new, empty store.
type Factory func() Store

// Info describes a registered store.
type Info struct {
	// Name is the name the store is registered under.
	Name string
	// Description is one line saying what the store is.
	Description string
	// New makes a new, empty store.
	New Factory
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Info{}
)

// Register makes a store available under name, with a one-line
// description for "certbench list". It is meant to be called from an init
// function of the store's package, so that importing the package registers
// the store. Names are case-sensitive and are what --stores takes.
//
// Register panics, as these are programming errors, when name is empty,
// already registered, or contains a space, ",", "/", "=", a tab or a
// newline (which would break --stores lists and benchmark names), or when
// f is nil.
func Register(name, description string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" || strings.ContainsAny(name, " ,/=\t\n") {
		panic(fmt.Sprintf("certstore: Register: bad store name %q", name))
	}
	if f == nil {
		panic("certstore: Register: nil factory for " + name)
	}
	if _, dup := registry[name]; dup {
		panic("certstore: Register called twice for " + name)
	}
	registry[name] = Info{Name: name, Description: description, New: f}
}

// Registered returns every registered store, sorted by name.
func Registered() []Info {
	registryMu.RLock()
	defer registryMu.RUnlock()
	infos := make([]Info, 0, len(registry))
	for _, info := range registry {
		infos = append(infos, info)
	}
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return infos
}

// LookupFactory returns the registered store with that name. Its error
// lists the registered names.
func LookupFactory(name string) (Info, error) {
	registryMu.RLock()
	info, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		var names []string
		for _, info := range Registered() {
			names = append(names, info.Name)
		}
		return Info{}, fmt.Errorf("unknown store %q (registered: %s)", name, strings.Join(names, ", "))
	}
	return info, nil
}
