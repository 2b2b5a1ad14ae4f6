/// The writer's guard against an edit served twice (protocol §8).
///
/// DELIVERY-3a, as a pure function
/// of the fetched edit and the history of answered ones.
public enum ReplayRule {
    /// One edit the service accepted an outcome for.
    public struct AnsweredEdit: Equatable, Sendable {
        /// SHA-256 of the sealed bytes as served, including the leading `0x02`.
        public let digest: [UInt8]
        public let name: EditName
        /// The editor's signature timestamp, Unix seconds.
        public let signedAt: Int64
        public let answeredAt: Int64

        public init(digest: [UInt8], name: EditName, signedAt: Int64, answeredAt: Int64) {
            self.digest = digest
            self.name = name
            self.signedAt = signedAt
            self.answeredAt = answeredAt
        }
    }

    /// §8: 15 minutes.
    public static let windowSeconds = ProtocolLimits.editReplayWindowSeconds

    /// Whether a fetched edit must be answered `replayed` (protocol §8).
    ///
    /// Whether a fetched, signature-valid edit must be answered `replayed` without touching
    /// Health: its digest was answered before under any name, or it was signed more than 15
    /// minutes before the newest answered edit.
    public static func isReplay(digest: [UInt8], signedAt: Int64, answered: [AnsweredEdit]) -> Bool {
        if answered.contains(where: { $0.digest == digest }) { return true }
        guard let newest = answered.map(\.signedAt).max() else { return false }
        return newest - signedAt > windowSeconds
    }

    /// The answered history worth keeping.
    ///
    /// The history worth keeping: entries signed within the window of the newest one. Anything
    /// older can only match edits the window rule already refuses.
    public static func pruned(_ answered: [AnsweredEdit]) -> [AnsweredEdit] {
        guard let newest = answered.map(\.signedAt).max() else { return [] }
        return answered.filter { newest - $0.signedAt <= windowSeconds }
    }
}
