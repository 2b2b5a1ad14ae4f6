import EfferentCore
import Foundation
import EfferentSystem
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A writer for the benchmark: claims, uploads and reads with signed requests over URLSession,
/// and writes wrk scripts that replay a signed upload.
struct BenchWriter {
    let reading = ReadingKey()
    let writer = Ed25519PrivateKey()
    let readKey: Ed25519PrivateKey
    init() { readKey = reading.readKey }
    var bucket: BucketID { reading.bucket }
    var now: Int64 { Int64(Date().timeIntervalSince1970) }

    func claim(_ port: Int) throws {
        let headers = SignedHeaders(signing: SignedMessage.claim(bucket: bucket, timestamp: now), with: writer, role: .writer, timestamp: now)
        let (status, _) = try Self.send("PUT", "http://127.0.0.1:\(port)/b/\(bucket)", headers: headers.fields, body: [])
        guard status == 201 else { throw BenchError("claim answered \(status)") }
    }

    /// `PUT /b/<b>/reader`: from now on the archive answers only reads signed with the read key (§7),
    /// as every real archive does once its owner has run `efferent init`.
    func registerReader(_ port: Int) throws {
        let body = readKey.publicKey.rawRepresentation
        let headers = SignedHeaders(signing: SignedMessage.reader(bucket: bucket, timestamp: now, body: body), with: writer,
                                    role: .writer, timestamp: now)
        let (status, _) = try Self.send("PUT", "http://127.0.0.1:\(port)/b/\(bucket)/reader", headers: headers.fields, body: body)
        guard status == 200 || status == 201 else { throw BenchError("registering the read key answered \(status)") }
    }

    /// The headers of a read of `target` signed now with the read key, and the message they sign.
    func signedRead(_ target: String) -> (headers: [(name: String, value: String)], message: [UInt8], signature: [UInt8]) {
        let time = now
        let message = SignedMessage.read(bucket: bucket, target: target, timestamp: time)
        let headers = SignedHeaders(signing: message, with: readKey, role: .reader, timestamp: time)
        return (headers.fields, message, headers.signature)
    }

    /// Uploads one frame; returns its size.
    func upload(_ days: [Frame.Day], port: Int) throws -> Int {
        let body = try Frame.pack(days)
        let time = now
        let headers = SignedHeaders(signing: SignedMessage.upload(bucket: bucket, days: days.map(\.day), timestamp: time, body: body),
                                    with: writer, role: .writer, timestamp: time)
        let (status, _) = try Self.send("PUT", "http://127.0.0.1:\(port)/b/\(bucket)/days", headers: headers.fields, body: body)
        guard status == 200 else { throw BenchError("upload answered \(status)") }
        return body.count
    }

    /// A read, signed with the read key (the service ignores the signature until one is registered).
    func get(_ path: String, port: Int) throws -> [UInt8] {
        let (status, body) = try Self.send("GET", "http://127.0.0.1:\(port)\(path)", headers: signedRead(path).headers, body: [])
        guard status == 200 else { throw BenchError("GET \(path) answered \(status)") }
        return body
    }

    /// Follows the listing's `next` to the end; returns the number of pages.
    func walkListing(port: Int) throws -> Int {
        var after: String?
        var pages = 0
        repeat {
            let body = try get("/b/\(bucket)/days" + (after.map { "?after=\($0)" } ?? ""), port: port)
            after = try JSONParser.parse(body)["next"]?.stringValue
            pages += 1
        } while after != nil
        return pages
    }

    /// A wrk request line set (method, path, headers, body file) for one signed upload.
    func wrkRequest(_ days: [Frame.Day], directory: String, index: Int) throws -> String {
        let body = try Frame.pack(days)
        let bodyPath = "\(directory)/frame-\(index).bin"
        try Data(body).write(to: URL(fileURLWithPath: bodyPath))
        let time = now
        let headers = SignedHeaders(signing: SignedMessage.upload(bucket: bucket, days: days.map(\.day), timestamp: time, body: body),
                                    with: writer, role: .writer, timestamp: time)
        let lua = headers.fields.map { "[\"\($0.name)\"]=\"\($0.value)\"" }.joined(separator: ",")
        return "{path=\"/b/\(bucket)/days\", body=\"\(bodyPath)\", headers={\(lua)}}"
    }

    static func plainGet(_ url: String) throws -> [UInt8] { try send("GET", url, headers: [], body: []).1 }

    static func send(_ method: String, _ url: String, headers: [(name: String, value: String)], body: [UInt8]) throws -> (Int, [UInt8]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for header in headers { request.setValue(header.value, forHTTPHeaderField: header.name) }
        if method != "GET" { request.httpBody = Data(body) }
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        URLSession.shared.dataTask(with: request) { data, response, error in
            outcome.value.withLock {
                $0 = error.map { .failure($0) } ?? .success(((response as? HTTPURLResponse)?.statusCode ?? 0, Array(data ?? Data())))
            }
            done.signal()
        }.resume()
        done.wait()
        return try outcome.value.withLock { $0 }?.get() ?? (0, [])
    }
}

/// What a data task handed back, set on URLSession's queue and read after its semaphore.
private final class Outcome: Sendable {
    let value = Mutex<Result<(Int, [UInt8]), any Error>?>(nil)
}
