import EfferentCrypto
import EfferentClient
import EfferentCore
import Foundation

/// Why a run of the applier stopped.
public enum EditApplierError: Error, CustomStringConvertible {
    /// The edit was applied here (or refused) but its outcome did not reach the service.
    case answerNotDelivered(EditName, Error)

    public var description: String {
        switch self {
        case let .answerNotDelivered(name, error):
            "edit \(name) was applied here, but its answer did not reach the service (\(error)); the next push sends that answer again"
        }
    }
}

/// The writer's side of agent edits (§8): lists the queue with a signed read, fetches each edit
/// with a writer-signed request, verifies it was signed by the registered editor key, refuses
/// replays, opens it, applies its items to the source store and reports the outcome, in queue
/// order. The touched days are marked in the same transaction as the change, so the push that
/// follows uploads them.
///
/// An edit whose outcome did not reach the service stays queued; the outcome was stored with the
/// change, and the next run sends it again without applying anything twice. A run killed inside
/// the apply transaction left nothing, and applies the edit afresh.
public final class EditApplier {
    public struct Report: Sendable {
        /// Edits answered this run.
        public var answered = 0
        public var itemsApplied = 0
        public var itemsFailed = 0
        /// Edits refused whole (bad signature, cannot open, malformed, replayed).
        public var refused = 0
        public var outcomes: [(name: EditName, outcome: EditOutcome)] = []
    }

    let store: SourceStore
    let client: ArchiveClient
    let reading: ReadingKey
    let writer: Ed25519PrivateKey
    let editor: Ed25519PublicKey
    let now: @Sendable () -> Date

    public init(store: SourceStore, client: ArchiveClient, reading: ReadingKey, writer: Ed25519PrivateKey,
                editor: Ed25519PublicKey, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.client = client
        self.reading = reading
        self.writer = writer
        self.editor = editor
        self.now = now
    }

    /// Answers every pending edit in queue order. Stops (throwing) at the first edit it cannot
    /// answer, so the replay window never skips past an unanswered one.
    public func run() async throws -> Report {
        var report = Report()
        for listed in try await client.edits(readKey: reading.readKey) {
            guard let fetched = try await client.fetchEdit(listed.name, writer: writer) else { continue }
            let (outcome, signedAt) = try answer(fetched)
            do {
                try await client.answer(fetched.name, with: outcome, writer: writer)
            } catch {
                throw EditApplierError.answerNotDelivered(fetched.name, error)
            }
            if let signedAt {
                try store.recordAnswered(ReplayRule.AnsweredEdit(digest: Sodium.sha256(fetched.sealed), name: fetched.name,
                                                                 signedAt: signedAt, answeredAt: Int64(now().timeIntervalSince1970)))
            }
            report.answered += 1
            report.itemsApplied += outcome.applied
            report.itemsFailed += outcome.failed.count
            if outcome.applied == 0, outcome.failed.count == 1, [.badSignature, .cannotOpen, .malformed, .replayed].contains(outcome.failed[0].code) {
                report.refused += 1
            }
            report.outcomes.append((fetched.name, outcome))
        }
        return report
    }

    /// The outcome for one fetched edit, and the editor's timestamp when the signature held.
    func answer(_ fetched: FetchedEdit) throws -> (EditOutcome, Int64?) {
        guard let headers = fetched.headers else { return (.refusedWhole(.badSignature), nil) }
        let edit = SealedEdit(sealed: fetched.sealed, headers: headers)
        do throws(SealedEditError) {
            try edit.verify(bucket: client.bucket, registeredEditor: editor)
        } catch {
            return (.refusedWhole(error.code), nil)
        }
        // §8: a replay touches nothing, checked before the edit is even opened.
        if ReplayRule.isReplay(digest: edit.digest, signedAt: headers.timestamp, answered: try store.answeredEdits()) {
            return (.refusedWhole(.replayed), headers.timestamp)
        }
        // Applied here by an earlier run whose answer did not reach the service: send that answer
        // again rather than apply twice (which would also bring back what the owner undid).
        if let unsent = try store.unsentOutcome(edit: fetched.name, digest: edit.digest) {
            return (unsent, headers.timestamp)
        }
        let items: [EditItem]
        do throws(SealedEditError) {
            items = try edit.open(bucket: client.bucket, reading: reading.privateKey)
        } catch {
            return (.refusedWhole(error.code), headers.timestamp)
        }
        return (try store.apply(items, edit: fetched.name, digest: edit.digest, now: now()), headers.timestamp)
    }
}
