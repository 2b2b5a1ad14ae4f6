internal import CSystem

/// The calling thread (`efferent_current_thread` in CSystem: `pthread_self` through a pointer the
/// optimizer cannot see through, so no call's value stands in for another's across an `await`).
/// What `Exclusive` records as its holder.
@usableFromInline
func currentThread() -> UInt { UInt(efferent_current_thread()) }
