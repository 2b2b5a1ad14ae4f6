import EfferentCore
import EfferentHTTP
import EfferentWriter
import Foundation

/// The optional read endpoints (Puls Sync Protocol v1 §9): the app's connection test, its
/// per-type counts and its reconciliation screens; and `/healthz` for load balancers.
extension ReceiverHandlers {
    static let features = ["batches", "stats", "digest", "uuids", "aggregates", "activitySummaries", "routes", "series", "profile"]
    /// §9.4: `/v1/uuids` answers at most 35 days at once.
    static let uuidRangeMilliseconds = 35.0 * 86_400_000

    func addReadRoutes(to router: Router) {
        router.get("/healthz") { _, _ in Self.json(200, "{\"ok\":true}") }
        router.get("/v1/capabilities") { [self] request, _ in
            touch(try admit(request.requestHead))
            let features = Self.features.map { "\"\($0)\"" }.joined(separator: ",")
            return Self.json(200, "{\"protocolVersions\":[1],\"features\":[\(features)],\"server\":\"efferent\","
                             + "\"version\":\(AccessLog.jsonString(configuration.version))}")
        }
        router.get("/v1/stats") { [self] request, _ in
            let phone = try admit(request.requestHead)
            touch(phone)
            let rows = try phone.profile.store.phoneStats().map { stats in
                "{\"type\":\(AccessLog.jsonString(stats.type)),\"rows\":\(stats.rows),\"earliest\":\(Self.milliseconds(stats.earliest)),"
                    + "\"latest\":\(Self.milliseconds(stats.latest)),\"lastBatchAt\":\(Self.milliseconds(stats.lastBatchAt)),"
                    + "\"batches\":\(stats.batches)}"
            }
            return Self.json(200, "[" + rows.joined(separator: ",") + "]")
        }
        router.get("/v1/digest") { [self] request, _ in
            let phone = try admit(request.requestHead)
            touch(phone)
            let range = try SampleRange(request.query)
            let months = try phone.profile.store.phoneDigests(type: range.type, from: range.from, to: range.to).map { month in
                "{\"window\":\(month.window),\"rows\":\(month.rows),\"digest\":\"\(Hex.encode(month.digest))\"}"
            }
            return Self.json(200, "[" + months.joined(separator: ",") + "]")
        }
        router.get("/v1/uuids") { [self] request, _ in
            let phone = try admit(request.requestHead)
            touch(phone)
            let range = try SampleRange(request.query)
            guard range.to - range.from <= Self.uuidRangeMilliseconds else { throw HTTPError(400, "range exceeds 35 days") }
            let uuids = try phone.profile.store.phoneUUIDs(type: range.type, from: range.from, to: range.to)
            return Self.json(200, "{\"uuids\":[" + uuids.map { "\"\($0)\"" }.joined(separator: ",") + "]}")
        }
    }

    /// Epoch milliseconds as a JSON integer, or null.
    static func milliseconds(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(Int64(value.rounded(.down)))
    }
}

/// `type`, `from` and `to` of the reconciliation endpoints: a type identifier and epoch
/// milliseconds with `to` after `from`; anything missing or malformed is a 400 (§9.3).
struct SampleRange {
    let type: String
    let from: Double
    let to: Double

    init(_ query: Substring) throws(HTTPError) {
        var values = [String: String]()
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(parts[0]).removingPercentEncoding,
                  let value = String(parts.count == 2 ? parts[1] : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                throw HTTPError(400, "the query is not valid percent-encoding")
            }
            guard values[name] == nil else { throw HTTPError(400, "\(name.prefix(20)) is given twice in the query") }
            values[name] = value
        }
        guard let type = values["type"], !type.isEmpty else { throw HTTPError(400, "type is missing: give a type identifier") }
        guard let from = values["from"].flatMap(Int64.init), let to = values["to"].flatMap(Int64.init) else {
            throw HTTPError(400, "from and to must be epoch milliseconds (integers)")
        }
        guard to > from else { throw HTTPError(400, "to must be after from") }
        self.type = type
        self.from = Double(from)
        self.to = Double(to)
    }
}

extension HTTPRequest {
    /// The head as it arrived, for the checks a streaming route makes before its body.
    var requestHead: HTTPRequestHead {
        HTTPRequestHead(method: method, target: target, version: nil, headers: headers, clientAddress: clientAddress)
    }
}
