import EfferentCore
import EfferentWriter
import Foundation
import EfferentSystem

/// One person's archive as a receiver serves it: their writer (store, keys, the service client),
/// the user ID their phones send, the paired tokens, and when their changed days are sealed.
public final class ReceiverProfile: Sendable {
    public let context: WriterContext
    /// The receiver's own tables and state, beside the writer's in its store.
    public let store: ReceiverStore
    public let user: PulsUUID
    let tokens: PhoneTokens
    /// The import run this receiver's records are stamped with. Begun at start when the store
    /// can take it; otherwise (a full disk, a store held by an import) with the first batch that
    /// finds room, so the receiver starts and answers 503 until then rather than failing to start
    /// (a restart loop under systemd, and a phone told nothing).
    private let phoneRun: Mutex<Int64?>
    let sealer: SealScheduler?
    /// The zone the last batch named once it was settled: the same zone again settles nothing new,
    /// so it is not settled (and written) again for every batch.
    let settledZone = Mutex<String?>(nil)

    /// Opens the writer profile's receiving side; throws when no phone was ever paired with it.
    public init(context: WriterContext, configuration: ReceiverConfiguration) throws {
        let store = try ReceiverStore(store: context.store)
        guard let user = try store.existingPhoneUser() else { throw ReceiverError.notPaired(context.profile.directory) }
        self.context = context
        self.store = store
        self.user = user
        tokens = try PhoneTokens(path: context.store.path)
        // Its failure is met again, and answered, by the first batch that needs the run.
        phoneRun = Mutex(try? store.beginPhoneRun(source: "efferent receive"))
        sealer = configuration.seals ? SealScheduler(context: context, configuration: configuration) : nil
    }

    /// This receiver's import run, begun on first use (a failure, such as a full disk, is thrown
    /// to the batch that needed it, and the next batch tries again).
    func run() throws -> Int64 {
        try phoneRun.withLock { run throws -> Int64 in
            if let run { return run }
            let begun = try store.beginPhoneRun(source: "efferent receive")
            run = begun
            return begun
        }
    }
}

public enum ReceiverError: Error, Equatable, CustomStringConvertible {
    case notPaired(String)
    case sameUser(String)

    public var description: String {
        switch self {
        case let .notPaired(directory):
            "No phone is paired with the writer in \(directory): run `efferent receive pair --url URL` there first."
        case let .sameUser(user):
            "Two of the writers given send the user ID \(user); each person's phone needs a writer of its own."
        }
    }
}
