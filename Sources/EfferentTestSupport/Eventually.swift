import Foundation

/// Waits until `condition` holds, looking every 5 ms for at most `seconds`: a bound for a test
/// that would otherwise hang on a state that never comes, never a duration the outcome depends on.
/// Whether it held.
public func eventually(within seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(5000)
    }
    return try condition()
}

/// `eventually` for a condition that awaits, looked at every `interval` seconds; it sleeps as a
/// task, holding no thread.
public func eventually(within seconds: Double = 10, every interval: Double = 0.005,
                       _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(nanoseconds: UInt64(interval * 1e9))
    }
    return try await condition()
}
