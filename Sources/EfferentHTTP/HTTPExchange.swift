import EfferentSystem
import Foundation

/// One request from its head to its answer: matched to a route when the head arrives (and
/// refused there when it can be), fed its body as it arrives within the route's ceiling, then
/// answered by the route's handler. Errors render themselves; anything else is a 500 that is
/// logged and says nothing private. One access-log line per request.
///
/// The daemon creates it on a poll thread (so the head is judged without waiting on anything),
/// and takes the body and the answer on a worker where they may block; one thread at a time.
/// `respond(to:)` drives it in process with the whole body as one piece, so both take exactly
/// the same path.
public final class HTTPExchange {
    public let head: HTTPRequestHead
    /// The answer to send without reading the body (a refusal), when there is one.
    public private(set) var earlyResponse: HTTPResponse?

    private let configuration: Router.Configuration
    private let started = Date()
    private var pattern = "-"
    private var route: Router.Route?
    private var parameters = RouteParameters()
    private var sink: (any HTTPBodySink)?
    private var gzip: GzipBody?
    private var collected: [UInt8] = []
    private var received = 0
    private var refusal: HTTPResponse?
    /// This request's place among its client's requests in flight, given back when it is done.
    private var ticket: ClientGate.Ticket?
    /// What this request's body takes of the server's budget, given back when it is done.
    private var share: BodyBudget.Share?
    /// The body's declared length was taken from the budget with the head.
    private var takenWhole = false

    init(head: HTTPRequestHead, router: RoutedResponder) {
        self.head = head
        configuration = router.configuration
        do {
            if head.version == "HTTP/1.1", head.headers["host"] == nil { throw HTTPError.missingHost }
            if let clients = router.clients {
                ticket = clients.enter(head.client(trustingProxy: configuration.trustProxy))
                if ticket == nil { throw HTTPError.tooManyAtOnce(clients.limit) }
            }
            try configuration.admit?(head)
            let (route, parameters) = try router.match(head.method, head.path)
            self.route = route
            self.parameters = parameters
            pattern = route.pattern
            // A streaming route judges the head first (a token, a protocol version): its own
            // refusal says more than a ceiling's, and a protocol may fix which answer comes first.
            if case let .streamed(makeSink, _) = route.kind { sink = try makeSink(head, parameters) }
            let declared = head.headers["content-length"].flatMap { Int($0) }
            if let declared, declared > route.limit.bytes { throw route.limit.refusal }
            if let limit = route.limit.gzip {
                switch head.headers["content-encoding"]?.lowercased() {
                case nil, "identity": break
                case "gzip": gzip = try GzipBody(limit: limit)
                default: throw HTTPError(415, "this route takes a body sent plain or with Content-Encoding: gzip")
                }
            }
            share = router.bodyBudget?.share()
            // The inflater's window and the piece it fills.
            if gzip != nil { try share?.take(2 * GzipBody.pieceBytes) }
            if sink == nil, gzip == nil, let declared, declared > 0 {
                // A body kept whole counts whole from its head, so a refusal comes before a byte is read.
                try share?.take(declared)
                takenWhole = true
                // One buffer of the declared size, not a doubling series of them (a body is kept whole).
                collected.reserveCapacity(declared)
            }
        } catch {
            let response = decorated(answer(for: error))
            earlyResponse = response
            logLine(status: response.status, bytesIn: 0, bytesOut: response.body.count)
        }
    }

    /// Whether taking the body does real work (a sink parses it, gzip inflates it), so the daemon
    /// hands each piece over on a worker; a body only collected is taken on the poll thread.
    public var receiveMayBlock: Bool { sink != nil || gzip != nil }

    /// The next bytes of the body. False once the request is refused (over a ceiling, bad gzip,
    /// a sink that threw): the rest is dropped, never kept, and the refusal answers at the end.
    public func receive(_ chunk: [UInt8]) -> Bool {
        guard earlyResponse == nil, refusal == nil, let route else { return false }
        received += chunk.count
        do {
            guard received <= route.limit.bytes else { throw route.limit.refusal }
            if let gzip {
                // Inflated output goes on 64 KiB at a time, never gathered per chunk first; each
                // piece counts against the budget before the route takes it.
                try gzip.inflate(chunk) { [share] piece in
                    try share?.take(piece.count)
                    if let sink { try sink.take(piece) } else { collected += piece }
                }
            } else if let sink {
                try share?.take(chunk.count)
                try sink.take(chunk)
            } else {
                if !takenWhole { try share?.take(chunk.count) }
                collected += chunk
            }
            return true
        } catch {
            refusal = answer(for: error)
            // What the refused body took goes now, not when the client stops sending, and the
            // heap's free pages go back to the system: a flood of refused bombs leaves no peak behind.
            collected = []
            sink = nil
            gzip = nil
            share?.giveBack()
            ProcessMemory.returnFreedPages()
            return false
        }
    }

    /// The answer, once the body has ended.
    public func finish() -> HTTPResponse {
        if let earlyResponse { return earlyResponse }
        let response: HTTPResponse
        if let refusal {
            response = refusal
            // Once more at the end: other refused bodies may have ended since this one was refused.
            ProcessMemory.returnFreedPages()
        } else {
            do {
                guard let route else { throw HTTPError.unknownPath }
                try gzip?.finish()
                let request = HTTPRequest(method: head.method, target: head.target, lowercasedHeaders: head.headers, body: collected,
                                          clientAddress: head.clientAddress)
                collected = []
                switch route.kind {
                case let .buffered(handler): response = try handler(request, parameters)
                case let .streamed(_, handler):
                    guard let sink else { throw HTTPError.internalFailure }
                    response = try handler(request, parameters, sink)
                }
            } catch {
                response = answer(for: error)
            }
        }
        // The body (and what the route's sink built from it) is done with once the answer is made.
        sink = nil
        share?.giveBack()
        logLine(status: response.status, bytesIn: received, bytesOut: response.body.count)
        return decorated(response)
    }

    /// The answer with the headers every answer of this router carries, unless it set them itself.
    private func decorated(_ response: HTTPResponse) -> HTTPResponse {
        guard !configuration.headers.isEmpty else { return response }
        var response = response
        for (name, value) in configuration.headers where response.header(name) == nil { response.headers.append((name, value)) }
        return response
    }

    /// An error as an answer: its own when it is one, otherwise logged (its description names
    /// tables and constraints, never a value) and answered with the recovery (a 503 a retry can
    /// get past) or a 500 naming the log line's error id, so an operator finds what a client saw.
    private func answer(for error: any Error) -> HTTPResponse {
        if let error = error as? any HTTPResponseError { return configuration.present?(head, error) ?? error.response }
        let recovered = configuration.recover?(error)
        let id = String(UInt32.random(in: .min ... .max), radix: 16)
        configuration.log?(LogLine(recovered == nil ? .error : .warning, ["route": .text(pattern), "errorId": .text(id),
                                                                          "error": .text(String(describing: error))]).json)
        return (recovered ?? HTTPError.internalFailure(id: id)).response
    }

    private func logLine(status: Int, bytesIn: Int, bytesOut: Int) {
        guard let log = configuration.log else { return }
        log(AccessLog.line(method: head.method, route: pattern, status: status, bytesIn: bytesIn, bytesOut: bytesOut, started: started,
                           client: head.client(trustingProxy: configuration.trustProxy)))
    }
}
