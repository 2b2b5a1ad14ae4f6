import EfferentClient
import EfferentCore

/// The keys a writer uses right now. A rotation under way (`rotation.json`) has its new keys
/// take over at once for sealing, signing reads and judging edits, in this process and in any
/// other on the same profile (a receiver running for days reads them at each push).
extension WriterContext {
    /// The reading key that seals days and signs reads now.
    public func currentReading() throws -> ReadingKey { try profile.readingKeys().current }

    /// The editor key whose edits are taken now.
    public func currentEditor() throws -> EditorKey {
        if let journal = try profile.rotationJournal() { return journal.editor }
        return try profile.editorKey()
    }

    /// A push by a caller that already holds the writer's turn (a rotation rebuilding the days
    /// neither key opened), sealing to `reading`.
    func pushInTurn(check: Pusher.Check, priority: SourcePriority, reading: ReadingKey) async throws -> Pusher.Report {
        let pusher = Pusher(store: store, builder: builder(priority: priority), client: try client(), reading: reading, writer: writer)
        return try await pusher.run(check: check)
    }
}
