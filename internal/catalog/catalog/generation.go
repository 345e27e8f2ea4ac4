package catalog

// Generational is implemented by a Store whose answers change only when its
// Generation moves: every write bumps it after the write is visible (after
// commit), never before, and it never goes back. A store written behind its
// back (another process on the same file) must not implement it.
type Generational interface {
	Generation() uint64
}

// LiveGenerational is implemented by a LiveFields whose answers change only
// when LiveGeneration moves (same rules as Generational).
type LiveGenerational interface {
	LiveGeneration() uint64
}

// LiveGeneration: NoLive never changes.
func (NoLive) LiveGeneration() uint64 { return 0 }
