import EfferentSystem
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
        socket = LoopbackSocket.open()
        if let source { LoopbackSocket.bind(socket, address: source, port: 0) }
        LoopbackSocket.receiveTimeout(socket, seconds: 10)
        guard LoopbackSocket.connect(socket, address: host, port: port) else { LoopbackSocket.close(socket); throw POSIXError(.ECONNREFUSED) }
    }

    deinit { LoopbackSocket.close(socket) }

    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Whether the server still holds the connection open (a peek that finds no close and no error).
    public var isOpen: Bool {
        let found = LoopbackSocket.poll(socket, peek: true)
        return found == .data || found == .wouldBlock
    }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = LoopbackSocket.send(socket, bytes[offset...])
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
        guard let received = LoopbackSocket.receive(socket, limit: 65536) else { throw POSIXError(.ETIMEDOUT) }
        if received.isEmpty { return false }
        pending.append(contentsOf: received)
        return true
    }
}
