import EfferentCore
import EfferentCrypto
import EfferentHTTP
import Foundation

/// The routes anyone holding a shared link uses, as the SMART Health Links IG defines them
/// ("SMART Health Link Manifest Request" and "`.files.location` links",
/// https://hl7.org/fhir/uv/smart-health-cards-and-links/STU1/links-specification.html).
extension ArchiveHandlers {
    /// `POST /shl/<link>` `{"recipient": "…", "passcode": "…", "embeddedLengthMax": n}`: the
    /// manifest. A link no longer active is 404; a wrong passcode 401 with `remainingAttempts`,
    /// counted for the link's whole life and locking it at the tenth.
    func manifest(_ link: LinkID, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.links, request)
        guard let body = try? JSONParser.parse(request.body), case .object = body else {
            throw LinkRefusal(400, "a manifest request is a JSON object with recipient (and passcode when the link needs one)")
        }
        guard let named = body["recipient"]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !named.isEmpty else {
            throw LinkRefusal(400, "a manifest request names its recipient: who is opening the link, shown to the person who shared it")
        }
        let recipient = String(named.prefix(LinkLimits.recipientCharacters))
        var embedUpTo = LinkLimits.embeddedDefaultBytes
        if let member = body["embeddedLengthMax"] {
            guard let asked = member.integerValue, asked >= 0 else { throw LinkRefusal(400, "embeddedLengthMax is a whole number of characters, 0 or more") }
            embedUpTo = Int(min(asked, Int64(LinkLimits.maxFileBytes)))
        }
        var passcode: String?
        if let member = body["passcode"] {
            guard let text = member.stringValue, text.utf8.count <= LinkLimits.passcodeBytes.upperBound else {
                throw LinkRefusal(400, "a passcode is text of at most \(LinkLimits.passcodeBytes.upperBound) bytes")
            }
            passcode = text
        }
        let moment = now
        let ms = Int64((moment.timeIntervalSince1970 * 1000).rounded(.down))
        guard let state = try store.linkState(link) else { throw LinkRefusal.unknown }
        if let end = state.end(now: ms) { throw LinkRefusal.ended(end) }
        if state.passcodeHash != nil {
            guard let passcode, !passcode.isEmpty else {
                throw LinkRefusal(401, "this link needs the passcode its sender gave you",
                                  remainingAttempts: max(0, LinkLimits.passcodeAttempts - state.failures))
            }
            switch try store.attemptPasscode(link, now: moment, verify: { stored in passcodes.run { Sodium.passwordMatches(passcode, hash: stored) } }) {
            case .accepted: break
            case let .wrong(remaining):
                throw LinkRefusal(401, remaining == 0
                                  ? "that is not this link's passcode, and it was the last try: the link is locked now"
                                  : "that is not this link's passcode; \(remaining) \(remaining == 1 ? "try remains" : "tries remain") before the link locks",
                                  remainingAttempts: remaining)
            case .locked: throw LinkRefusal.locked
            case let .inactive(end): throw LinkRefusal.ended(end)
            }
        }
        let base = publicBase(request)
        switch try store.manifest(link, recipient: recipient, embedUpTo: embedUpTo, now: moment, ticket: Self.newTicket) {
        case let .files(files, longTerm):
            var writer = JSONWriter(reservingCapacity: 256 + files.reduce(0) { $0 + ($1.embedded?.count ?? 0) + 160 })
            writer.raw("{\"files\":[")
            for (index, file) in files.enumerated() {
                if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
                writer.raw("{\"contentType\":\"application/fhir+json\"")
                if let embedded = file.embedded {
                    // Compact JWE is base64url and dots: nothing in it needs escaping.
                    writer.raw(",\"embedded\":\"")
                    writer.raw(contentsOf: embedded)
                    writer.raw(byte: UInt8(ascii: "\""))
                } else if let ticket = file.ticket {
                    writer.raw(",\"location\":")
                    writer.string(base + LinkLimits.routePrefix + "/f/" + ticket)
                }
                writer.raw(",\"lastUpdated\":")
                writer.string(ISOTime.milliseconds(file.uploaded))
                writer.raw(byte: UInt8(ascii: "}"))
            }
            writer.raw("],\"status\":")
            writer.string(longTerm ? "can-change" : "finalized")
            writer.raw(byte: UInt8(ascii: "}"))
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")] + LinkRoutes.crossOrigin,
                                body: writer.bytes)
        case .notPublished: throw LinkRefusal(404, "this link's files are still being uploaded; try again in a minute")
        case let .inactive(end): throw LinkRefusal.ended(end)
        case .unknown: throw LinkRefusal.unknown
        }
    }

    /// `GET /shl/f/<ticket>`: one file as `application/jose`, while its address lasts (an hour
    /// after the manifest that gave it) and its link lives.
    func linkFile(_ ticket: String, _ request: HTTPRequest) throws -> HTTPResponse {
        try rateLimit(.links, request)
        guard let jwe = try store.linkFile(ticket: Sodium.sha256(Array(ticket.utf8)), now: now) else { throw LinkRefusal.ticketGone }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/jose"), ("Cache-Control", "no-store")] + LinkRoutes.crossOrigin,
                            body: jwe)
    }

    /// The CORS preflight a receiving application on another origin sends before its manifest POST.
    static func manifestPreflight() -> HTTPResponse {
        HTTPResponse(status: 204, headers: LinkRoutes.crossOrigin + [("Access-Control-Allow-Methods", "POST"),
                                                                     ("Access-Control-Allow-Headers", "content-type"),
                                                                     ("Access-Control-Max-Age", "600")])
    }

    /// A file address's token (32 random bytes, base64url) and the hash the store keeps of it.
    @Sendable static func newTicket() -> (text: String, hash: [UInt8]) {
        let text = Base64URL.encode(Sodium.randomBytes(32))
        return (text, Sodium.sha256(Array(text.utf8)))
    }

    /// Where people reach this service: `--public-url`, else the request's own scheme and Host
    /// (behind a trusted proxy, its `X-Forwarded-Proto`).
    func publicBase(_ request: HTTPRequest) -> String {
        if let url = configuration.publicURL { return url.hasSuffix("/") ? String(url.dropLast()) : url }
        var scheme = configuration.servesTLS ? "https" : "http"
        if configuration.trustProxy, let forwarded = request.header("x-forwarded-proto")?.split(separator: ",").last?
            .trimmingCharacters(in: .whitespaces).lowercased(), forwarded == "https" || forwarded == "http" {
            scheme = forwarded
        }
        return "\(scheme)://\(request.header("host") ?? "127.0.0.1")"
    }
}
