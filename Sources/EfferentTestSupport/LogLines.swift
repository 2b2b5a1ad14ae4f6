import EfferentSystem

/// Log lines a server under test writes, collected from its threads.
public final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public func append(_ line: String) { lines.withLock { $0.append(line) } }

    public var all: [String] { lines.withLock { $0 } }
}
