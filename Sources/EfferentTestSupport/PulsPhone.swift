import EfferentSystem
import Foundation

/// A stand-in for the PulsHealth app (Puls Sync Protocol v1 §2, §8): posts batches to a receiver
/// on loopback over one keep-alive connection, gzip and the app's headers included, and retries
/// 5xx and 429 answers as the app does — here at once, since a test waits on nothing. One phone
/// posts from one task at a time; what it counts may be read from any.
public final class PulsPhone: Sendable {
    public struct Answer: Sendable {
        public let status: Int
        public let body: String
        public let headers: [String: String]

        /// A count of the 2xx body (`accepted`, `duplicates`, …), 0 when absent.
        public func count(_ name: String) -> Int {
            guard let range = body.range(of: "\"\(name)\":") else { return 0 }
            return Int(body[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
    }

    public let port: Int
    public let token: String
    public let user: String?
    /// The keep-alive connection, held for a whole exchange (one post at a time).
    private let connection = Mutex<RawHTTPConnection?>(nil)
    private let retriedCounts = Mutex<[Int: Int]>([:])
    /// Answers that were retried (5xx, 429), by status.
    public var retried: [Int: Int] { retriedCounts.withLock { $0 } }

    public init(port: Int, token: String, user: String?) {
        self.port = port
        self.token = token
        self.user = user
    }

    /// Posts `ndjson` (gzipped unless `plain`) with the app's headers and any `extra` ones.
    public func post(_ ndjson: String, plain: Bool = false, extra: [String: String] = [:]) throws -> Answer {
        let body = plain ? Array(ndjson.utf8) : try gzipped(Array(ndjson.utf8))
        var headers = headers(gzip: !plain)
        for (name, value) in extra { headers[name] = value }
        return try send(method: "POST", target: "/v1/batches", headers: headers, body: body)
    }

    /// The headers the app sends with a batch (for a body compressed ahead, as the bench does).
    public func headers(gzip: Bool) -> [String: String] {
        var headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/x-ndjson", "X-Puls-Protocol": "1"]
        if gzip { headers["Content-Encoding"] = "gzip" }
        if let user { headers["X-User-ID"] = user }
        return headers
    }

    /// Posts until the answer is neither a 5xx nor a 429 (at most `attempts` times). Retries
    /// while `held` says the test is still holding the receiver back do not count: how many come
    /// before the test lets go depends on how fast threads run, which a test must not.
    public func postRetrying(_ ndjson: String, attempts: Int = 50, held: (@Sendable () -> Bool)? = nil) throws -> Answer {
        var answer = try post(ndjson)
        var left = attempts - 1
        while left > 0, answer.status >= 500 || answer.status == 429 {
            retriedCounts.withLock { $0[answer.status, default: 0] += 1 }
            if held?() != true { left -= 1 }
            answer = try post(ndjson)
        }
        return answer
    }

    /// A read endpoint, with the token and user ID.
    public func get(_ target: String) throws -> Answer {
        var headers = ["Authorization": "Bearer \(token)", "X-Puls-Protocol": "1"]
        if let user { headers["X-User-ID"] = user }
        return try send(method: "GET", target: target, headers: headers, body: [])
    }

    /// One exchange; a connection the receiver closed (after a refusal) is opened again once.
    public func send(method: String, target: String, headers: [String: String], body: [UInt8]) throws -> Answer {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let port = port
        return try connection.withLock { connection in
            try Self.exchange(Array(head.utf8) + body, port: port, over: &connection)
        }
    }

    private static func exchange(_ request: [UInt8], port: Int, over connection: inout RawHTTPConnection?) throws -> Answer {
        for attempt in 0..<2 {
            if connection == nil { connection = try RawHTTPConnection(port: port) }
            connection!.send(request)
            do {
                let response = try connection!.readResponse()
                if response.headers["connection"]?.lowercased() == "close" { connection = nil }
                return Answer(status: response.status, body: response.body, headers: response.headers)
            } catch {
                connection = nil
                if attempt == 1 { throw error }
            }
        }
        throw POSIXError(.ECONNRESET)
    }
}

/// Batch text as the app writes it: a header line with the counts, then the lines in order.
public enum PulsBatchText {
    /// `lines` by kind, in the protocol's order; the header's counts follow from them.
    public static func batch(id: String = UUID().uuidString, device: String = "test-device", type: String = "HKQuantityTypeIdentifierStepCount",
                             reason: String = "backfill", samples: [String] = [], deletions: [String] = [], routes: [String] = [],
                             series: [String] = [], aggregates: [String] = [], summaries: [String] = [], profile: String? = nil) -> String {
        let header = "{\"schemaVersion\":1,\"clientVersion\":\"efferent-tests\",\"batchID\":\"\(id)\",\"deviceID\":\"\(device)\","
            + "\"type\":\"\(type)\",\"reason\":\"\(reason)\",\"exportedAt\":1718000000000.5,\"sampleCount\":\(samples.count),"
            + "\"deletionCount\":\(deletions.count),\"routeCount\":\(routes.count),\"seriesCount\":\(series.count),"
            + "\"aggregateCount\":\(aggregates.count),\"activitySummaryCount\":\(summaries.count),\"profileCount\":\(profile == nil ? 0 : 1)}"
        let lines = [header] + samples + deletions + routes + series + aggregates + summaries + (profile.map { [$0] } ?? [])
        return lines.joined(separator: "\n") + "\n"
    }

    /// A quantity sample; instants in epoch milliseconds.
    public static func quantity(uuid: String = UUID().uuidString, type: String, start: Double, end: Double, value: Double, unit: String,
                                source: String = "Apple Watch", device: String? = "Apple Watch") -> String {
        "{\"uuid\":\"\(uuid)\",\"type\":\"\(type)\",\"kind\":\"quantity\",\"start\":\(number(start)),\"end\":\(number(end)),"
            + "\"value\":\(number(value)),\"unit\":\"\(unit)\",\"sourceName\":\"\(source)\""
            + (device.map { ",\"device\":\"\($0)\"" } ?? "") + "}"
    }

    public static func deletion(uuid: String, type: String) -> String {
        "{\"deleted\":{\"uuid\":\"\(uuid)\",\"type\":\"\(type)\"}}"
    }

    public static func aggregate(type: String, function: String = "sum", unit intervalUnit: String, filter: String = "all",
                                 start: Double, end: Double, value: Double?, valueUnit: String) -> String {
        "{\"aggregate\":{\"type\":\"\(type)\",\"func\":\"\(function)\",\"intervalValue\":1,\"intervalUnit\":\"\(intervalUnit)\","
            + "\"deviceFilter\":\"\(filter)\",\"bucketStart\":\(number(start)),\"bucketEnd\":\(number(end)),"
            + "\"value\":\(value.map(number) ?? "null"),\"unit\":\"\(valueUnit)\"}}"
    }

    /// Whole numbers without a fraction, anything else as Swift writes it.
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
