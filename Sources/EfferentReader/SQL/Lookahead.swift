import EfferentSystem
import Foundation

/// Items `0..<count` made one ahead on a thread of their own: while the caller works on item i,
/// item i + 1 is being made, so a two-core machine reads and computes the next export window
/// while SQLite inserts the current one. At most two items exist at once, which bounds memory.
///
/// A thread of its own rather than a task: the export runs synchronously under a command's task,
/// and the cooperative pool has as many threads as cores, so waiting there could starve the work
/// it waits for.
final class Lookahead<Item: Sendable> {
    private let count: Int
    private let make: @Sendable (Int) throws -> Item
    private var index = 0
    private var pending: Blocking.Pending<Result<Item, any Error>>?

    init(count: Int, make: @escaping @Sendable (Int) throws -> Item) {
        self.count = count
        self.make = make
        pending = start(0)
    }

    /// An item still being made when the caller stops (an error, an early return) is waited for,
    /// so no thread outlives the run that asked for it.
    deinit { _ = pending?.wait() }

    private func start(_ index: Int) -> Blocking.Pending<Result<Item, any Error>>? {
        guard index < count else { return nil }
        let make = make
        // Decoding a day recurses through its JSON; give it the main thread's stack, not a secondary thread's default.
        return Blocking.started(stackSize: 8 << 20) { Result { try make(index) } }
    }

    /// The next item, in order (nil after the last), once it is made; starts making the one after.
    func next() throws -> Item? {
        guard let slot = pending else { return nil }
        let made = slot.wait()
        pending = nil
        index += 1
        pending = start(index)
        return try made.get()
    }
}
