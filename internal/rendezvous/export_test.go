package rendezvous

// Point is the number of the last point Wait was called for.
func (d *Dir) Point() int { return d.point }
