package health

import "time"

// Interval is how often the check runs by itself.
const Interval = 7 * 24 * time.Hour

// Due reports whether a run is due at now when the last one was at last
// (zero: never).
func Due(last, now time.Time) bool { return last.IsZero() || now.Sub(last) >= Interval }

// Run judges every check on f, in the spec's order.
func Run(f *Facts) *Report {
	r := &Report{At: f.Now.UTC(), Findings: make([]Finding, 0, len(checks))}
	for _, c := range checks {
		fd := c.run(f)
		fd.Check, fd.Title = c.id, c.title
		if fd.Severity == "" {
			fd.Severity = Info
			if fd.State != StateOK && fd.State != StateNotChecked {
				fd.Severity = c.severity
			}
		}
		r.Findings = append(r.Findings, fd)
	}
	return r
}
