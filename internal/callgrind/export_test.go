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

// Collect runs f in a window and reads the window's dump back.
func (s *Session) Collect(label string, f func()) (*Profile, string, error) {
	w := s.NewWindow(label)
	w.Run(f)
	p, err := s.Read(label, w.File)
	return p, w.File, err
}
