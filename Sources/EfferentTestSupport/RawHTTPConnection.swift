import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP client for tests that need exact bytes on the wire: half-sent requests, keep-alive,
/// chunked bodies. Reads one response per exchange (Content-Length bodies, or until close).
public final class RawHTTPConnection {
    public struct Response {
        public let status: Int
        public let headers: [String: String]
        public let body: String
    }

    private let socket: Int32
    private var pending = [UInt8]()

    /// `source` binds the client's end to that loopback address (127.0.0.x) first.
    public init(port: Int, host: String = "127.0.0.1", source: String? = nil) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(socket); throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(socket) }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Whether the server still holds the connection open (a peek that finds no close and no error).
    public var isOpen: Bool {
        var byte: UInt8 = 0
        let n = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n > 0 { return true }
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    public func exchange(_ request: String) throws -> Response {
        send(request)
        return try readResponse()
    }

    /// The next response; `bodiless` for the answer to HEAD, whose Content-Length has no body.
    public func readResponse(bodiless: Bool = false) throws -> Response {
        while pending.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
            guard try fill() else { throw POSIXError(.ECONNRESET) }
        }
        let end = pending.firstRange(of: Array("\r\n\r\n".utf8))!
        let headText = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
        pending.removeSubrange(..<end.upperBound)
        var lines = headText.components(separatedBy: "\r\n")
        let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
        var headers = [String: String]()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if bodiless { return Response(status: status, headers: headers, body: "") }
        if let length = headers["content-length"].flatMap(Int.init) {
            while pending.count < length { guard try fill() else { break } }
            let body = Array(pending.prefix(length))
            pending.removeFirst(min(length, pending.count))
            return Response(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
        }
        while try fill() {}
        defer { pending = [] }
        return Response(status: status, headers: headers, body: String(decoding: pending, as: UTF8.self))
    }

    /// The payload of a chunked body read until close (RFC 9112 §7.1), for text answers.
    public static func dechunked(_ body: String) -> String {
        let bytes = Array(body.utf8)
        var out = [UInt8]()
        var index = 0
        while let lineEnd = bytes[index...].firstRange(of: [0x0D, 0x0A]),
              let size = Int(String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0 {
            let end = min(lineEnd.upperBound + size, bytes.count)
            out += bytes[lineEnd.upperBound..<end]
            index = min(end + 2, bytes.count)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func fill() throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw POSIXError(.ETIMEDOUT) }
        if n == 0 { return false }
        pending.append(contentsOf: buffer[..<n])
        return true
    }
}
