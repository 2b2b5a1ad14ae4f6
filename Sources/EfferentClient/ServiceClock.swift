import EfferentCore
import Foundation
import EfferentSystem

/// The archive service's clock as this client knows it: local time plus a learnt offset.
///
/// Signatures must be within ±300 s of the service (§5.3), so a client signs on the service's
/// clock. The offset is learnt from refusals (the body's `now`, exact) or an answer's `Date`
/// header, and kept only when it differs from the known one by more than 60 s (§9.7).
public final class ServiceClock: Sendable {
    private let offset: Mutex<Int64>
    private let local: @Sendable () -> Date

    public init(offset: Int64 = 0, local: @escaping @Sendable () -> Date = { Date() }) {
        self.offset = Mutex(offset)
        self.local = local
    }

    /// Seconds to add to the local clock to read the service's.
    public var currentOffset: Int64 { offset.withLock { $0 } }

    /// Unix seconds on the service's clock.
    public var now: Int64 { Int64(local().timeIntervalSince1970.rounded(.down)) + currentOffset }

    /// Learns the service's time; returns whether the kept offset changed.
    @discardableResult
    public func learn(serviceNow: Int64) -> Bool {
        let measured = serviceNow - Int64(local().timeIntervalSince1970.rounded(.down))
        return offset.withLock { known in
            guard abs(measured - known) > 60 else { return false }
            known = measured
            return true
        }
    }

    /// Learns from an RFC 9110 `Date` header (`Sun, 06 Nov 1994 08:49:37 GMT`).
    @discardableResult
    public func learn(httpDate: String) -> Bool {
        guard let seconds = Self.parseHTTPDate(httpDate) else { return false }
        return learn(serviceNow: seconds)
    }

    static func parseHTTPDate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]) else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int64($0) }
        guard clock.count == 3, let date = CalendarDay(year: year, month: month + 1, day: day) else { return nil }
        return date.startUnixSeconds + clock[0] * 3600 + clock[1] * 60 + clock[2]
    }
}
