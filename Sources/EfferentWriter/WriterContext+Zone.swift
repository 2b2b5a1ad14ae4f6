import EfferentClient
import EfferentCore
import Foundation

/// The archive's zone (decision A.4): pinned by the first input that shows it when `init` was
/// given none, checked against every later input, changed on the owner's word.
extension WriterContext {
    /// Settles the zone against what an input showed. Not pinned yet: the input's zone is pinned
    /// (records already stored are re-filed into its days) — or, when the input shows nothing, the
    /// provisional zone `init` chose. Pinned: a warning when the input's records were made
    /// elsewhere. A receiver calls this with what a phone's batch names (`learnZone(named:)`).
    @discardableResult
    public func settleZone(_ evidence: ZoneEvidence) throws -> ZoneOutcome {
        let settings = settings
        if settings.timeZonePinned {
            if let warning = evidence.disagreement(with: zone) {
                try store.setMeta(Self.zoneWarningKey, warning)
                return .disagrees(warning)
            }
            if !evidence.isEmpty { try store.setMeta(Self.zoneWarningKey, nil) }
            return .agrees
        }
        let decision = evidence.decision(machineZone: settings.timeZone)
            ?? ZoneDecision(zone: settings.timeZone, reason: "the input names no zone and carries no offsets, so this machine's zone stays")
        guard let chosen = ZoneCalendar(identifier: decision.zone) else { throw WriterError.unknownTimeZone(decision.zone) }
        let recut = chosen.identifier != zone.identifier
        if recut { try store.recut(to: chosen) }
        try save { $0.timeZone = chosen.identifier; $0.timeZonePinned = true }
        return .pinned(decision, recut: recut)
    }

    /// `settleZone` with one zone a live batch named (a PulsHealth `timeZoneID`).
    @discardableResult
    public func learnZone(named identifier: String) throws -> ZoneOutcome {
        try settleZone(ZoneEvidence(named: [identifier: 1]))
    }

    /// Cuts every day in `identifier` from now on: every record is re-filed under its day there,
    /// every day the ledger knows is marked, and the next push re-seals and re-uploads them all.
    /// Returns how many records moved to another day.
    @discardableResult
    public func changeZone(to identifier: String) async throws -> Int {
        guard let zone = ZoneCalendar(identifier: identifier) else { throw WriterError.unknownTimeZone(identifier) }
        // In turn with pushes and edit runs: a push sealing days of the old cut never finishes
        // after the re-cut and records them as accepted.
        return try await exchanges.pass { [self] in
            let moved = try store.recut(to: zone)
            try store.setMeta(Self.zoneWarningKey, nil)
            try save { $0.timeZone = zone.identifier; $0.timeZonePinned = true }
            return moved
        }
    }

    /// The last import's warning that its records were made in another zone, until one agrees.
    public var zoneWarning: String? { (try? store.meta(Self.zoneWarningKey)) ?? nil }

    static let zoneWarningKey = "zone.warning"
}
