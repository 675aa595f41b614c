// Package health is the weekly self-check of a workspace (spec/lifecycle.md
// "Ongoing health"; architecture.md "health/"): the eleven checks of the
// spec's table, each judged from Facts the engine gathers, each answered by
// a Finding with a stable id, its state, its severity, one plain sentence
// and the resolve action the spec names. The package is pure: it reads no
// store and no network; the engine gathers the facts, runs the repairs the
// spec makes automatic, persists the report and schedules the next run
// (Due: weekly, and on demand). docs/protocol/health.md describes it.
package health
