import Foundation

/// A client whose requests arrive whole and at once, asking while slow clients hold connections:
/// each request on a connection of its own (from `source` when given), one after another.
public struct GoodClient {
    public struct Result: CustomStringConvertible {
        public var answered = 0
        public var asked = 0
        public var latencies: [Double] = []
        public var failures: [String] = []

        public var median: Double {
            let sorted = latencies.sorted()
            return sorted.isEmpty ? .infinity : sorted[sorted.count / 2]
        }

        public var slowest: Double { latencies.max() ?? .infinity }

        public var description: String {
            "\(answered) of \(asked) answered, median \(String(format: "%.3f", median)) s, slowest \(String(format: "%.3f", slowest)) s"
                + (failures.isEmpty ? "" : "; failures: \(failures.prefix(3))")
        }
    }

    public let port: Int
    public let target: String
    public let source: String?
    public let headers: [String: String]
    public let host: String

    public init(port: Int, target: String, source: String? = nil, host: String = "127.0.0.1", headers: [String: String] = [:]) {
        self.port = port
        self.target = target
        self.source = source
        self.host = host
        self.headers = headers
    }

    /// Asks `count` times, `pause` seconds apart; a request unanswered after 10 s counts as failed.
    public func ask(_ count: Int, pause: Double = 0.1, expecting status: Int = 200) -> Result {
        var result = Result()
        let head = "GET \(target) HTTP/1.1\r\nHost: \(host)\r\n" + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n"
        for _ in 0..<count {
            result.asked += 1
            let started = Date()
            do {
                let connection = try RawHTTPConnection(port: port, source: source)
                let response = try connection.exchange(head)
                if response.status == status {
                    result.answered += 1
                    result.latencies.append(Date().timeIntervalSince(started))
                } else {
                    result.failures.append("status \(response.status)")
                }
            } catch {
                result.failures.append("\(error)")
            }
            usleep(useconds_t(pause * 1_000_000))
        }
        return result
    }
}
