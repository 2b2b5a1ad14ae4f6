import EfferentCore
import Foundation

/// Signed requests to one archive (§5–§8): every writer, reader and editor call goes through here.
///
/// Signatures use the service's clock; a refusal for time teaches the clock and the request is
/// signed again once. Transient failures (5xx, 429, network) are retried per `RetryPolicy`.
public final class ArchiveClient: Sendable {
    public let endpoint: String
    public let bucket: BucketID
    public let clock: ServiceClock
    let transport: any HTTPTransport
    let retry: RetryPolicy
    /// Told, in a sentence, each time a request waits to be tried again (the CLI prints it).
    let onRetry: (@Sendable (String) -> Void)?

    /// `connectTimeout`: seconds a connection may take before the service counts as away (2.5 s by
    /// default; an answer that would only refresh a mirror first gives it less).
    public init(endpoint: String, bucket: BucketID, clock: ServiceClock = ServiceClock(), retry: RetryPolicy = RetryPolicy(),
                transport: (any HTTPTransport)? = nil, connectTimeout: Double = 2.5, onRetry: (@Sendable (String) -> Void)? = nil) {
        let trimmed = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.endpoint = trimmed
        self.bucket = bucket
        self.clock = clock
        self.retry = retry
        self.transport = transport ?? CurlTransport(endpoint: trimmed, connectTimeout: connectTimeout)
        self.onRetry = onRetry
    }

    var base: String { "/b/\(bucket)" }

    // MARK: Writer

    /// `PUT /b/<b>`: claims the bucket (or confirms it is ours). Returns whether it was created.
    @discardableResult
    public func claim(writer: Ed25519PrivateKey, invite: String?) async throws(ArchiveError) -> Bool {
        let answer = try await send("PUT", base, extra: invite.map { [("x-efferent-invite", $0)] } ?? []) { now in
            (SignedHeaders(signing: SignedMessage.claim(bucket: self.bucket, timestamp: now), with: writer, role: .writer, timestamp: now), [])
        }
        return answer.status == 201
    }

    /// `PUT /b/<b>/reader` or `/editor`: registers the public half of the read or editor key.
    public func register(_ role: RegistrationRole, key: Ed25519PublicKey, writer: Ed25519PrivateKey) async throws(ArchiveError) {
        let body = key.rawRepresentation
        _ = try await send("PUT", base + "/" + role.rawValue, body: body) { now in
            let message = role == .reader ? SignedMessage.reader(bucket: self.bucket, timestamp: now, body: body)
                                          : SignedMessage.editor(bucket: self.bucket, timestamp: now, body: body)
            return (SignedHeaders(signing: message, with: writer, role: .writer, timestamp: now), [])
        }
    }

    /// `PUT /b/<b>/days`: one frame of sealed days; the answer names exactly the days stored.
    /// 4xx refusals are not retried (the caller counts an attempt against the days).
    public func upload(_ days: [Frame.Day], writer: Ed25519PrivateKey) async throws(ArchiveError) -> UploadAnswer {
        let body: [UInt8]
        do { body = try Frame.pack(days) } catch { throw .unexpectedAnswer("the days do not make a frame: \(error)") }
        let dayList = days.map(\.day)
        let answer = try await send("PUT", base + "/days", body: body, contentType: "application/octet-stream") { now in
            (SignedHeaders(signing: SignedMessage.upload(bucket: self.bucket, days: dayList, timestamp: now, body: body),
                           with: writer, role: .writer, timestamp: now), [])
        }
        guard let json = try? JSONParser.parse(answer.body), let stored = json["stored"]?.arrayValue else {
            throw .unexpectedAnswer("an upload answer without a list of stored days")
        }
        let days = stored.compactMap { $0.stringValue.flatMap { CalendarDay($0) } }
        guard days.count == stored.count else { throw .unexpectedAnswer("an upload answer naming something that is not a day") }
        return UploadAnswer(stored: days, bytes: body.count)
    }

    // MARK: Reads (signed with the read key, which the service ignores until one is registered)

    /// One listing page (§6): days after `after` (or from `from`), up to `to`, at most `limit`.
    public func listingPage(from: CalendarDay? = nil, to: CalendarDay? = nil, after: CalendarDay? = nil, limit: Int? = nil,
                            readKey: Ed25519PrivateKey) async throws(ArchiveError) -> ListingPage {
        var query = [String]()
        if let from { query.append("from=\(from)") }
        if let to { query.append("to=\(to)") }
        if let after { query.append("after=\(after)") }
        if let limit { query.append("limit=\(limit)") }
        let answer = try await read(base + "/days" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), readKey: readKey)
        return try ListingPage(json: answer.body)
    }

    /// The whole listing within the bounds, following `next`; a walk that cannot finish throws
    /// rather than returning the pages that arrived (§9.6: a partial listing would look like loss).
    public func listing(from: CalendarDay? = nil, to: CalendarDay? = nil, readKey: Ed25519PrivateKey,
                        maxPages: Int = 200) async throws(ArchiveError) -> [ListedDay] {
        var all = [ListedDay]()
        var after: CalendarDay?
        for _ in 0..<maxPages {
            let page = try await listingPage(from: after == nil ? from : nil, to: to, after: after, readKey: readKey)
            if let last = all.last, let first = page.days.first, first.day <= last.day {
                throw .unexpectedAnswer("a listing page that does not continue after \(last.day)")
            }
            all += page.days
            guard let next = page.next else { return all }
            after = next
        }
        throw .unexpectedAnswer("a listing longer than \(maxPages) pages")
    }

    /// `GET /b/<b>/stats` (open).
    public func stats() async throws(ArchiveError) -> ArchiveStats {
        let answer = try await exchange(ClientRequest(method: "GET", target: base + "/stats"))
        return try ArchiveStats(json: answer.body)
    }

    /// `GET /b/<b>/d/<day>`: one sealed day, or nil when the archive has none.
    public func sealedDay(_ day: CalendarDay, readKey: Ed25519PrivateKey) async throws(ArchiveError) -> [UInt8]? {
        do throws(ArchiveError) {
            return try await read(base + "/d/\(day)", readKey: readKey, maxAnswerBytes: ProtocolLimits.maxDayBytes).body
        } catch where error.status == 404 {
            return nil
        }
    }

    /// `GET /b/<b>/d?from=&to=[&after=]`: one range answer, checked as §6 asks.
    public func range(from: CalendarDay, to: CalendarDay, after: CalendarDay? = nil,
                      readKey: Ed25519PrivateKey) async throws(ArchiveError) -> RangeAnswer {
        let target = base + "/d?from=\(from)&to=\(to)" + (after.map { "&after=\($0)" } ?? "")
        // §6: at most 92 days and 8 MiB of sealed bytes (a single larger day still goes alone, and
        // no day passes 1 MiB), each day framed in 14 bytes.
        let ceiling = ProtocolLimits.maxRangeBytes + ProtocolLimits.maxRangeDays * (Frame.dayBytes + Frame.lengthBytes)
        let answer = try await read(target, readKey: readKey, maxAnswerBytes: ceiling)
        let days: [Frame.Day]
        do { days = try Frame.unpack(answer.body, allowingEmpty: true) } catch {
            throw .unexpectedAnswer("a range answer that is not a frame (\(error.description))")
        }
        let floor = max(after ?? from.previous, from.previous)
        guard days.allSatisfy({ $0.day > floor && $0.day <= to }) else {
            throw .unexpectedAnswer("a range answer holding a day outside \(from) … \(to)")
        }
        var next: CalendarDay?
        if let text = answer.headers["x-efferent-next"] {
            guard let day = CalendarDay(text), day > floor, day == days.last?.day else {
                throw .unexpectedAnswer("an x-efferent-next that does not move forward")
            }
            next = day
        }
        return RangeAnswer(days: days, next: next)
    }

    func read(_ target: String, readKey: Ed25519PrivateKey,
              maxAnswerBytes: Int = ClientRequest.defaultAnswerCeiling) async throws(ArchiveError) -> ClientResponse {
        do throws(ArchiveError) {
            return try await send("GET", target, maxAnswerBytes: maxAnswerBytes) { now in
                (SignedHeaders(signing: SignedMessage.read(bucket: self.bucket, target: target, timestamp: now),
                               with: readKey, role: .reader, timestamp: now), [])
            }
        } catch {
            // A signed read refused for its key: after a key rotation every old handoff is; say
            // what to do beside the service's own sentence.
            guard case let .refused(403, message) = error else { throw error }
            throw .refused(status: 403, message: message + Self.takenBackAdvice)
        }
    }

    /// What a reader whose key the archive refuses can do.
    public static let takenBackAdvice = "; if the archive's owner rotated its keys (efferent keys rotate), this reader's handoff was taken back: "
        + "ask them for a new one and run efferent connect --handoff FILE again"


    // MARK: Plumbing

    /// Signs (with `sign`, on the service clock), sends, retries transient failures, and re-signs
    /// once after a refusal for time. Throws the service's refusal for any other non-2xx answer.
    func send(_ method: String, _ target: String, body: [UInt8] = [], contentType: String? = nil,
              extra: [(String, String)] = [], maxAnswerBytes: Int = ClientRequest.defaultAnswerCeiling,
              sign: @escaping @Sendable (Int64) -> (SignedHeaders, [(String, String)])) async throws(ArchiveError) -> ClientResponse {
        var clockRetried = false
        while true {
            let (headers, more) = sign(clock.now)
            var fields = headers.fields.map { ($0.name, $0.value) } + more + extra
            if let contentType { fields.append(("Content-Type", contentType)) }
            let request = ClientRequest(method: method, target: target, headers: fields, body: body, maxAnswerBytes: maxAnswerBytes)
            do throws(ArchiveError) {
                return try await exchange(request)
            } catch let error {
                // §9.7: a refusal for time carries the service's clock; learn it and sign again once.
                if !clockRetried, case let .refused(400, message) = error, message.hasPrefix("timestamp is") {
                    clockRetried = true
                    continue
                }
                throw error
            }
        }
    }

    /// One request with retries of transient failures; 2xx answers return, others throw. Each wait
    /// is announced through `onRetry`; a cancelled task stops waiting and throws `.cancelled`.
    func exchange(_ request: ClientRequest) async throws(ArchiveError) -> ClientResponse {
        var attempt = 0
        while true {
            let failure: ArchiveError
            var retryAfter: Double?
            do throws(ArchiveError) {
                let response = try await transport.send(request)
                if let date = response.headers["date"] { clock.learn(httpDate: date) }
                if (200..<300).contains(response.status) { return response }
                let json = try? JSONParser.parse(response.body)
                if let now = json?["now"]?.integerValue { clock.learn(serviceNow: now) }
                let message = json?["error"]?.stringValue ?? "HTTP \(response.status)"
                failure = ArchiveError.refused(status: response.status, message: String(message.prefix(300)))
                retryAfter = response.headers["retry-after"].flatMap(Double.init)
            } catch {
                failure = error
            }
            guard failure.isTransient, attempt < retry.delays.count else { throw failure }
            let wait = retry.delay(attempt: attempt, retryAfter: retryAfter)
            onRetry?(Self.retryNotice(failure, wait: wait, asked: retryAfter, attempt: attempt + 2, of: retry.delays.count + 1))
            guard !Task.isCancelled else { throw .cancelled }
            do { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) } catch { throw .cancelled }
            attempt += 1
        }
    }

    /// "the archive service answered 503 (…); trying again in 4 s (attempt 2 of 5)".
    static func retryNotice(_ failure: ArchiveError, wait: Double, asked: Double?, attempt: Int, of attempts: Int) -> String {
        let what = switch failure {
        case let .refused(status, message): "the archive service answered \(status) (\(message))"
        case let .unreachable(_, reason): reason
        default: failure.description
        }
        let capped = asked.map { $0 > wait ? "; it asked for \(Int($0)) s, which is more than this client waits" : "" } ?? ""
        return "\(what); trying again in \(String(format: "%.0f", wait.rounded(.up))) s (attempt \(attempt) of \(attempts))\(capped)"
    }
}

public enum RegistrationRole: String, Sendable {
    case reader, editor
}
