/// `--listen ADDR:PORT` as both servers take it: `127.0.0.1:8750`, `[::1]:8750`, or `:8750` (every
/// IPv4 interface).
public struct ListenAddress: Sendable, Equatable {
    public let host: String
    public let port: Int

    public init(parsing text: String) throws(UsageError) {
        var host: Substring, port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            port = text[close...].dropFirst().drop(while: { $0 == ":" })
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            throw UsageError("--listen takes ADDRESS:PORT, for example 127.0.0.1:8750.")
        }
        if host.isEmpty { host = "0.0.0.0" }
        guard let number = Int(port), (0...65535).contains(number) else { throw UsageError("--listen needs a port from 0 to 65535.") }
        self.host = String(host)
        self.port = number
    }

    /// Whether only this machine can connect (127.0.0.0/8, ::1, localhost).
    public var isLoopback: Bool { host == "::1" || host == "localhost" || host.hasPrefix("127.") }

    /// `http://127.0.0.1:8751`, brackets around an IPv6 host.
    public func url(scheme: String, port actual: Int? = nil) -> String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(actual ?? port)"
    }
}

extension ListenAddress {
    /// The host and port of `text`, for callers that keep them apart.
    public static func parse(_ text: String) throws(UsageError) -> (host: String, port: Int) {
        let address = try ListenAddress(parsing: text)
        return (address.host, address.port)
    }
}
