import Foundation

/// The address `efferent dashboard` prints on its first line (`Efferent dashboard:
/// http://127.0.0.1:PORT/?token=TOKEN`), read from its standard output as it starts.
public struct PrintedAddress: Sendable {
    public let port: Int
    public let token: String
    /// The whole first line, for a message when it is not an address.
    public let line: String
    /// Everything read with it (the lines printed in the same write).
    public let printed: String

    /// Reads up to the first line break; nil when the line holds no address.
    public static func read(from handle: FileHandle) -> PrintedAddress? {
        var printed = Data()
        while !printed.contains(UInt8(ascii: "\n")) {
            let piece = handle.availableData
            if piece.isEmpty { break }
            printed += piece
        }
        let line = String(decoding: printed.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.components(separatedBy: "/?token=")
        guard parts.count == 2, line.hasPrefix("Efferent dashboard: http://"), let port = Int(parts[0].split(separator: ":").last ?? "") else {
            return nil
        }
        return PrintedAddress(port: port, token: String(parts[1].prefix { !$0.isWhitespace }), line: line,
                              printed: String(decoding: printed, as: UTF8.self))
    }
}
