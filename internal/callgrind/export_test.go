package callgrind

// Func returns the first function with the given name, or nil.
func (p *Profile) Func(name string) *Function {
	for _, f := range p.Functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}
