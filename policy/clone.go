package policy

import (
	"maps"
	"slices"
)

// Clone returns a deep copy of p: no pointer, slice or map of the copy is shared with p, so
// a loader inheriting from a preset or `base:`, or storm overriding a field, cannot change the
// original. Nil stays nil and an empty non-nil slice stays empty and non-nil (Retry.On: an
// empty list retries nothing, nil means DefaultRetryOn). A nil p gives nil.
func (p *Policy) Clone() *Policy {
	if p == nil {
		return nil
	}
	c := *p
	c.Retry.On = slices.Clone(p.Retry.On)
	c.Retry.Never = slices.Clone(p.Retry.Never)
	c.Retry.Delays = slices.Clone(p.Retry.Delays)
	c.Retry.RetryAfterOn = slices.Clone(p.Retry.RetryAfterOn)
	c.Budget = clonePtr(p.Budget)
	c.Breaker = clonePtr(p.Breaker)
	c.Bulkhead = clonePtr(p.Bulkhead)
	c.IdempotencyKey = clonePtr(p.IdempotencyKey)
	c.Layers = CloneLayers(p.Layers)
	c.Source = maps.Clone(p.Source)
	return &c
}

// CloneLayers deep-copies a layer list, each layer's policy with Policy.Clone.
func CloneLayers(ls []Layer) []Layer {
	if ls == nil {
		return nil
	}
	out := make([]Layer, len(ls))
	for i, l := range ls {
		out[i] = Layer{Name: l.Name, Policy: l.Policy.Clone()}
	}
	return out
}

// clonePtr copies the value a pointer to a flat struct or scalar points at.
func clonePtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}
