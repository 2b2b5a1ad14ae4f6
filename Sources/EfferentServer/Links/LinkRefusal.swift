import EfferentCore
import EfferentHTTP

/// A refusal on the routes anyone holding a link uses (the IG's manifest and file routes): a
/// status and a sentence, `remainingAttempts` where the IG asks for it ("SMART Health Link
/// Manifest Request": an invalid passcode is 401 with the attempts left), and the CORS header,
/// so a receiving application on another origin can read why.
struct LinkRefusal: HTTPResponseError, Equatable, CustomStringConvertible {
    let status: Int
    let message: String
    var remainingAttempts: Int?

    init(_ status: Int, _ message: String, remainingAttempts: Int? = nil) {
        self.status = status
        self.message = message
        self.remainingAttempts = remainingAttempts
    }

    var description: String { "\(status) \(message)" }

    var response: HTTPResponse {
        HTTPError.render(status: status, message: message, members: remainingAttempts.map { [("remainingAttempts", Int64($0))] } ?? [],
                         headers: LinkRoutes.crossOrigin + [("Cache-Control", "no-store")])
    }

    static let unknown = LinkRefusal(404, "there is no such link on this service; check that the link was copied whole")
    static let ticketGone = LinkRefusal(404, "this file's address has lapsed (an address lasts an hour) or its link has ended; ask for the link's manifest again")

    /// The IG's answer for a link that is no longer active: 404, saying why in a sentence.
    static func ended(_ end: LinkEnd?) -> LinkRefusal {
        switch end {
        case let .revoked(at)?: LinkRefusal(404, "the person who shared this link revoked it on \(ISOTime.milliseconds(at).prefix(10)); ask them for a new one")
        case let .expired(at)?: LinkRefusal(404, "this link expired on \(ISOTime.milliseconds(at).prefix(10)); ask the person who shared it for a new one")
        case .locked?: locked
        case nil: unknown
        }
    }

    static let locked = LinkRefusal(404, "this link was locked after \(LinkLimits.passcodeAttempts) wrong passcodes; ask the person who shared it for a new one")
}

/// What the link routes share.
enum LinkRoutes {
    /// The manifest and files may be fetched by a receiving application on any origin, as the IG
    /// intends; they hold nothing a request without the link could learn.
    static let crossOrigin: [(String, String)] = [("Access-Control-Allow-Origin", "*")]
}
