/// `--listen ADDRESS:PORT` as the servers take it: `127.0.0.1:8750`, `[::1]:8750`, or `:8750`
/// for every IPv4 interface.
public enum ListenAddress {
    public static func parse(_ text: String) throws(UsageError) -> (host: String, port: Int) {
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
        return (String(host), number)
    }
}
