import EfferentCore
import EfferentHTTP
import EfferentWriter
import EfferentSystem
import Foundation

/// `efferent receive`: a Puls Sync Protocol v1 receiver (the PulsHealth app's upload endpoint) on
/// the shared HTTP layer. Each phone's batches become source records exactly as an import of the
/// same lines makes them, in one transaction per batch, flushed to the disk before the answer;
/// the changed days are sealed and uploaded by the receiver itself (`SealScheduler`).
///
/// It is the phone's trusted side: it holds the writer key and sees plaintext, as the writer
/// always has. The archive service still sees only sealed days.
public final class Receiver: HTTPResponder {
    let handlers: ReceiverHandlers
    /// The route table, frozen once the routes are registered.
    private let routes: RoutedResponder

    /// Serves `profiles`, each one person's writer (their user IDs must differ).
    public init(profiles: [ReceiverProfile], configuration: ReceiverConfiguration = ReceiverConfiguration()) throws {
        var users = Set<PulsUUID>()
        for profile in profiles where !users.insert(profile.user).inserted { throw ReceiverError.sameUser(profile.user.description) }
        handlers = ReceiverHandlers(profiles: profiles, configuration: configuration)
        // What fails inside the store (busy past its timeout, a full disk) may pass on a retry: 503,
        // never a 4xx; anything else is a 500, logged with its error.
        let router = Router(configuration: Router.Configuration(log: configuration.log, trustProxy: configuration.trustProxy,
                                                                recover: ReceiverRefusal.recover,
                                                                bodyBudgetBytes: configuration.bodyBudgetBytes))
        handlers.addBatchRoute(to: router)
        handlers.addReadRoutes(to: router)
        routes = router.responder()
    }

    public func exchange(for head: HTTPRequestHead) -> HTTPExchange { routes.exchange(for: head) }

    public var profiles: [ReceiverProfile] { handlers.profiles }

    /// Starts sealing in the background (the first push runs at once).
    public func start() { for profile in profiles { profile.sealer?.start() } }

    /// Stops sealing after any push under way. It blocks: never call it from a task (`stopped()`).
    public func stop() { for profile in profiles { profile.sealer?.stop() } }

    /// `stop()` from a task: the push under way needs a thread of the cooperative pool to finish,
    /// so the wait holds none of them.
    public func stopped() async {
        let profiles = profiles
        await Blocking.onOwnThread { for profile in profiles { profile.sealer?.stop() } }
    }
}

/// What answers the receiver's routes: the profiles (one per person), who failed to authenticate
/// lately, and when each phone was last noted.
final class ReceiverHandlers: Sendable {
    let profiles: [ReceiverProfile]
    let configuration: ReceiverConfiguration
    let failures: FailedAuthentications
    /// When each phone's last use was written, so a read endpoint writes it at most once a minute.
    private let touched = Mutex<[Int64: Double]>([:])

    init(profiles: [ReceiverProfile], configuration: ReceiverConfiguration) {
        self.profiles = profiles
        self.configuration = configuration
        failures = FailedAuthentications(limit: configuration.failedAuthenticationsPerMinute)
    }

    // MARK: Who is asking

    /// A paired phone: its writer and its token's row.
    struct Phone {
        let profile: ReceiverProfile
        let token: Int64
    }

    /// Checks a request's head as the protocol orders it: the version (§2.2, before anything else),
    /// the bearer token (§2.2), then `X-User-ID` against the token's user (§2.4) and `X-Wake-ID`.
    func admit(_ head: HTTPRequestHead) throws -> Phone {
        if let version = head.header("x-puls-protocol") {
            guard let number = Int64(version.trimmingCharacters(in: .whitespaces)), PulsHeader.supportedVersions.contains(number) else {
                throw ReceiverRefusal.unsupportedVersion
            }
        }
        let phone = try authenticate(head)
        if let user = head.header("x-user-id") {
            guard let uuid = PulsUUID(user.trimmingCharacters(in: .whitespaces)) else { throw ReceiverRefusal.malformedUser }
            guard uuid == phone.profile.user else { throw ReceiverRefusal.otherUser }
        }
        if let wake = head.header("x-wake-id"), PulsUUID(wake.trimmingCharacters(in: .whitespaces)) == nil {
            throw ReceiverRefusal.malformedWake
        }
        return phone
    }

    /// The phone whose token the request carries. A wrong or missing token counts against the
    /// client's address; the right one is looked up first and never held back.
    private func authenticate(_ head: HTTPRequestHead) throws -> Phone {
        let authorization = head.header("authorization") ?? ""
        let scheme = authorization.prefix(7)
        let token = scheme.lowercased() == "bearer " ? authorization.dropFirst(7).trimmingCharacters(in: .whitespaces) : ""
        if !token.isEmpty {
            let hash = ReceiverStore.tokenHash(token)
            for profile in profiles {
                if let id = try profile.tokens.phone(hash: hash) { return Phone(profile: profile, token: id) }
            }
        }
        if let wait = failures.fail(head.client(trustingProxy: configuration.trustProxy), now: configuration.clock()) {
            throw ReceiverRefusal.tooManyFailures(retryAfter: wait)
        }
        throw token.isEmpty ? ReceiverRefusal.missingToken : ReceiverRefusal.wrongToken
    }

    /// Notes the phone's use (a read, which commits no batch), at most once a minute.
    func touch(_ phone: Phone) {
        let now = configuration.clock().timeIntervalSince1970
        let due = touched.withLock { touched in
            guard now - (touched[phone.token] ?? 0) >= 60 else { return false }
            touched[phone.token] = now
            return true
        }
        if due { try? phone.profile.store.touchPhone(phone.token, now: now) }
    }

    /// A JSON answer with its members in the order given.
    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
    }
}
