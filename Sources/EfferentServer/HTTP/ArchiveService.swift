import EfferentMicroHTTPD
import EfferentCore
import Foundation

/// The Efferent archive service: routes each request to its handler, renders refusals, logs one
/// line per request. It holds no state of its own; the store holds it all,
/// request counts for the rate limits included.
public final class ArchiveService: HTTPResponder {
    let store: any ArchiveStore
    let configuration: ServiceConfiguration
    let limiter: RateLimiter?

    public init(store: any ArchiveStore, configuration: ServiceConfiguration = ServiceConfiguration()) {
        self.store = store
        self.configuration = configuration
        self.limiter = configuration.rateLimits.map { RateLimiter(limits: $0, counter: store.requestCounter) }
    }

    // MARK: HTTPResponder

    public func admit(_ head: HTTPRequestHead) -> HTTPAdmission {
        do {
            let route = try Route(path: Self.path(of: head.target))
            guard route.methods.contains(head.method) else { throw ServiceError.methodNotAllowed(head.method) }
            return .accept(maxBodyBytes: route.maxBody(method: head.method))
        } catch {
            log(method: head.method, route: "-", status: error.status, bytesIn: 0, bytesOut: 0, started: Date(), client: head.clientAddress)
            return .refuse(error.response)
        }
    }

    public func bodyTooLarge(_ head: HTTPRequestHead, limit: Int) -> HTTPResponse {
        let route = try? Route(path: Self.path(of: head.target))
        log(method: head.method, route: route?.pattern ?? "-", status: 413, bytesIn: 0, bytesOut: 0, started: Date(), client: head.clientAddress)
        return Self.tooLarge(route, limit: limit).response
    }

    static func tooLarge(_ route: Route?, limit: Int) -> ServiceError {
        switch route {
        case .days: ServiceError(413, "a request may carry at most 5 MiB; send fewer days in each")
        case .edits: ServiceError(413, "an edit may be at most 256 KiB; send fewer items in each")
        case .outcome: ServiceError(413, "an outcome may be at most 64 KiB")
        default: ServiceError(413, "this route takes a body of at most \(limit) bytes")
        }
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let started = Date()
        var pattern = "-"
        let response: HTTPResponse
        do {
            let route = try Route(path: request.path)
            pattern = route.pattern
            guard route.methods.contains(request.method) else { throw ServiceError.methodNotAllowed(request.method) }
            let limit = route.maxBody(method: request.method)
            guard request.body.count <= limit else { throw Self.tooLarge(route, limit: limit) }
            response = try handle(route, request)
        } catch let error as ServiceError {
            response = error.response
        } catch let error as StoreError where error.isUnavailable {
            configuration.log?("{\"level\":\"error\",\"route\":\"\(pattern)\",\"error\":\(Self.jsonString(String(describing: error)))}")
            response = ServiceError.storeUnavailable.response
        } catch {
            // Store failures carry the database's message (tables, constraints), never a value.
            configuration.log?("{\"level\":\"error\",\"route\":\"\(pattern)\",\"error\":\(Self.jsonString(String(describing: error)))}")
            response = ServiceError.internalFailure.response
        }
        log(method: request.method, route: pattern, status: response.status, bytesIn: request.body.count,
            bytesOut: response.body.count, started: started, client: clientAddress(request))
        return response
    }

    func handle(_ route: Route, _ request: HTTPRequest) throws -> HTTPResponse {
        switch route {
        case .health: return Self.json(200, .object(["ok": .bool(true)]))
        case let .claim(id): return try claim(id, request)
        case let .days(id): return request.method == "PUT" ? try upload(id, request) : try listing(id, request)
        case let .day(id, day): return try oneDay(id, day, request)
        case let .range(id): return try range(id, request)
        case let .stats(id): return try stats(id)
        case let .editor(id): return try register(.editor, id, request)
        case let .reader(id): return try register(.reader, id, request)
        case .device:
            throw ServiceError(501, "this service sends no push notifications: writers collect edits each time they run")
        case let .edits(id): return request.method == "POST" ? try postEdit(id, request) : try listEdits(id, request)
        case let .edit(id, name): return try fetchEdit(id, name, request)
        case let .outcome(id, name): return try answerEdit(id, name, request)
        case let .answered(id, name): return try outcome(id, name, request)
        case let .mcp(id): return try mcp(id, request)
        }
    }

    // MARK: Shared pieces

    var now: Date { configuration.clock() }
    var nowSeconds: Int64 { Int64(now.timeIntervalSince1970.rounded(.down)) }

    /// The client's address: the peer, or with `--trust-proxy` the last `X-Forwarded-For` entry
    /// (the one the proxy itself appended).
    func clientAddress(_ request: HTTPRequest) -> String {
        if configuration.trustProxy, let forwarded = request.header("x-forwarded-for"),
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return last
        }
        return request.clientAddress
    }

    func rateLimit(_ kind: RateLimiter.Kind, _ request: HTTPRequest) throws {
        try limiter?.admit(kind, from: clientAddress(request), now: now)
    }

    /// Parses and checks signature headers for `role` (§6 order), then the signature over `message`.
    func verify(_ role: SignedHeaders.Role, _ request: HTTPRequest, message: (Int64) -> [UInt8]) throws(ServiceError) -> SignedHeaders {
        let headers: SignedHeaders
        do {
            headers = try SignedHeaders(parsing: { request.header($0) }, role: role, now: nowSeconds)
        } catch {
            throw ServiceError.signedHeaders(error)
        }
        guard headers.isValid(for: message(headers.timestamp)) else { throw ServiceError.badSignature }
        return headers
    }

    static func path(of target: String) -> Substring {
        target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
    }

    static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> HTTPResponse {
        // Answers are built from finite numbers only, so serialising cannot fail.
        let body = (try? value.canonicalBytes()) ?? Array("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    public static func jsonString(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// One JSON line per request: time, method, route pattern, status, bytes, milliseconds, client.
    /// Never a signature, key, invite code or body.
    func log(method: String, route: String, status: Int, bytesIn: Int, bytesOut: Int, started: Date, client: String) {
        guard let log = configuration.log else { return }
        let finished = Date()
        let ms = (finished.timeIntervalSince(started) * 1000 * 100).rounded() / 100
        log("{\"t\":\"\(ISOTime.milliseconds(Int64(finished.timeIntervalSince1970 * 1000)))\",\"method\":\(Self.jsonString(method)),"
            + "\"route\":\"\(route)\",\"status\":\(status),\"in\":\(bytesIn),\"out\":\(bytesOut),\"ms\":\(ms),"
            + "\"client\":\(Self.jsonString(client))}")
    }
}

extension Error {
    /// The status an error answers with in a log line.
    var status: Int { (self as? ServiceError)?.status ?? 500 }
    var response: HTTPResponse { (self as? ServiceError ?? ServiceError.internalFailure).response }
}
