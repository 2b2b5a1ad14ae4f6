import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT as an event rather than death, for servers that stop gracefully: the
/// default action is turned off and `wait()` returns when either arrives.
public final class TerminationSignal: @unchecked Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    private var sources: [DispatchSourceSignal] = []

    /// Starts listening; from here on SIGTERM and SIGINT no longer end the process by themselves.
    public init() {
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [arrived] in arrived.signal() }
            source.resume()
            sources.append(source)
        }
    }

    /// Blocks until one of the signals arrives.
    public func wait() { arrived.wait() }
}
