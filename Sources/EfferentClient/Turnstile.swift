/// One at a time, for async work that must not overlap with itself (two pushes would seal and
/// upload the same days twice; two syncs would write the same mirror). Unlike an actor, it holds
/// across suspension points: the next caller waits until the current one has left.
public actor Turnstile {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Runs `body` once every caller before this one has finished.
    public nonisolated func pass<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await enter()
        do {
            let result = try await body()
            await leave()
            return result
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
