import EfferentSystem

/// At most a few Argon2id computations at once (each fills 64 MiB, libsodium's interactive
/// limits): a burst of passcode tries waits its turn rather than taking the server's memory.
final class PasscodeGate: Sendable {
    private let running: Monitor<Int>
    private let limit: Int

    init(concurrent limit: Int = 2) {
        self.limit = limit
        running = Monitor(0)
    }

    func run<T>(_ body: () throws -> T) rethrows -> T {
        running.wait { count -> Monitor<Int>.Step<Void> in
            guard count < limit else { return .sleep(until: nil) }
            count += 1
            return .done(())
        }
        defer {
            running.withLock { $0 -= 1 }
            running.signal()
        }
        return try body()
    }
}
