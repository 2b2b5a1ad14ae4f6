import EfferentCrypto
import EfferentSQLite
import EfferentCore
import Foundation

/// Agent edits in the source store (§8): applying items under the agent's ids, the journal of
/// what each item displaced, undo, and the history the replay rule needs. Each change commits
/// with the marks on the days it touched.
extension SourceStore {
    /// The record id an agent's handle is stored under: the first 8 bytes of
    /// SHA-256("efferent:<id>"), disjoint in practice from imported identities (decision A.6).
    static func recordID(agentID: String) -> Int64 {
        let digest = Sodium.sha256(Array("efferent:\(agentID)".utf8))
        return digest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// The source name agent records carry in day bodies, as HealthKit would name this app.
    public static let agentSource = "Efferent"

    /// Applies the items of edit `name` in order, at `now`: each item that breaks a rule of §8
    /// fails with its word and the rest apply. One transaction: the records, the journal, the
    /// marks on every touched day and the outcome (kept until the service accepts it, keyed by
    /// `name` and the sealed edit's `digest`) commit together.
    public func apply(_ items: [EditItem], edit name: EditName, digest: [UInt8], now: Date) throws -> EditOutcome {
        try serialized {
            try db.write {
                var applied = 0
                var failed = [EditOutcome.Failure]()
                for (index, item) in items.enumerated() {
                    do {
                        try item.validate(now: Int64(now.timeIntervalSince1970))
                        try apply(item, index: index, edit: name, at: now.timeIntervalSince1970)
                        applied += 1
                    } catch let error as EditItemError {
                        failed.append(.init(item: index, code: error.code))
                    } catch let error as AgentItemRefusal {
                        failed.append(.init(item: index, code: error.code))
                    }
                }
                let outcome = EditOutcome(applied: applied, failed: failed)
                try db.statement("INSERT OR REPLACE INTO applied_edit (name, digest, outcome) VALUES (?, ?, ?)")
                    .run([.text(name.rawValue), .blob(digest), .blob(outcome.encoded)])
                return outcome
            }
        }
    }

    /// The outcome of edit `name` applied here and not yet accepted by the service, when the
    /// sealed bytes are the same ones (`digest`).
    public func unsentOutcome(edit name: EditName, digest: [UInt8]) throws -> EditOutcome? {
        try serialized {
            guard let bytes = try db.statement("SELECT outcome FROM applied_edit WHERE name = ? AND digest = ?")
                .first([.text(name.rawValue), .blob(digest)], { $0.blob(0) }) else { return nil }
            return try EditOutcome(decoding: bytes)
        }
    }

    private func apply(_ item: EditItem, index: Int, edit: EditName, at: Double) throws {
        let recordID = Self.recordID(agentID: item.id)
        let agentRecord = try db.statement("SELECT 1 FROM record WHERE id = ? AND origin = 1").first([.integer(recordID)]) { _ in true } ?? false
        switch item {
        case .delete:
            guard agentRecord else {
                // §8: notFound is a delete of an id never written; one already deleted is done.
                let written = try db.statement("SELECT 1 FROM written WHERE agent_id = ?").first([.text(item.id)]) { _ in true } ?? false
                if written { return }
                throw AgentItemRefusal(code: .notFound)
            }
            let seq = try journal(edit: edit, index: index, at: at, op: "delete", agentID: item.id, added: nil, put: nil, version: nil)
            try displace(recordID, seq: seq)
        case let .put(put):
            guard WritableMetric(rawValue: put.metric) != nil else { throw AgentItemRefusal(code: .unknownMetric) }
            let target = MetricMapping.target(forMetric: put.metric, unit: put.unit)
            // Only what an agent wrote can be replaced: an imported record under the same identity
            // (a 64-bit collision, in practice never) is Health's.
            if try db.statement("SELECT 1 FROM record WHERE start = ? AND id = ? AND origin = 0")
                .first([.integer(put.start), .integer(recordID)], { _ in true }) ?? false {
                throw AgentItemRefusal(code: .healthRefused)
            }
            let version = (try db.statement("SELECT version FROM written WHERE agent_id = ?").first([.text(put.id)]) { $0.int64(0) } ?? 0) + 1
            try db.statement("INSERT INTO written (agent_id, version) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE SET version = excluded.version")
                .run([.text(put.id), .integer(version)])
            let seq = try journal(edit: edit, index: index, at: at, op: "put", agentID: put.id, added: recordID, put: put, version: version)
            if agentRecord { try displace(recordID, seq: seq) }
            let day = zone.day(of: Double(put.start))
            try staleTotals(metric: put.metric, total: target.isTotal, start: put.start, end: put.end)
            try db.statement("""
                INSERT INTO record (id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin, seen)
                VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, NULL, NULL, ?, 1, 0)
                """).run([.integer(recordID), .text(put.metric), .integer(target.isTotal ? 1 : 0), .text(Self.agentSource),
                          .integer(put.start), .integer(put.end), put.value.map { .real($0) } ?? .null,
                          put.unit.map { .text($0) } ?? .null, put.stage.map { .text($0) } ?? .null, .text(day.description)])
            try mark(span(day, put.end))
        }
    }

    /// The days a record starting on `day` and ending at `end` can change: its own, and for a
    /// total spanning midnight the days its share is prorated into (§4.1).
    private func span(_ day: CalendarDay, _ end: Int64) -> [String] {
        let last = zone.day(of: Double(end))
        var days = [day.description]
        var next = day.next
        while next <= last && days.count < 3 { days.append(next.description); next = next.next }
        return days
    }

    private func journal(edit: EditName, index: Int, at: Double, op: String, agentID: String, added: Int64?,
                         put: EditItem.Put?, version: Int64?) throws -> Int64 {
        try db.statement("""
            INSERT INTO edit_journal (edit, item, at, op, agent_id, added, metric, start, end, value, unit, stage, version)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run([.text(edit.rawValue), .integer(Int64(index)), .real(at), .text(op), .text(agentID),
                      added.map { .integer($0) } ?? .null, put.map { .text($0.metric) } ?? .null,
                      put.map { .integer($0.start) } ?? .null, put.map { .integer($0.end) } ?? .null,
                      put?.value.map { .real($0) } ?? .null, put?.unit.map { .text($0) } ?? .null,
                      put?.stage.map { .text($0) } ?? .null, version.map { .integer($0) } ?? .null])
        return db.lastInsertRowID
    }

    /// Moves the agent's record under `recordID` into the journal's keeping for entry `seq`, marking its days.
    private func displace(_ recordID: Int64, seq: Int64) throws {
        try db.statement("""
            INSERT INTO edit_displaced SELECT ?, rid, id, metric, total, source, device, start, end, value, unit, stage, activity,
                duration, day, origin, seen FROM record WHERE id = ? AND origin = 1
            """).run([.integer(seq), .integer(recordID)])
        if let old = try db.statement("SELECT day, end, metric, total, start FROM record WHERE id = ? AND origin = 1")
            .first([.integer(recordID)], { ($0.text(0), $0.int64(1), $0.text(2), $0.int64(3) == 1, $0.int64(4)) }) {
            if let day = CalendarDay(old.0) { try mark(span(day, old.1)) }
            try staleTotals(metric: old.2, total: old.3, start: old.4, end: old.1)
        }
        try db.statement("DELETE FROM record WHERE id = ? AND origin = 1").run([.integer(recordID)])
    }

    // MARK: Undo

    /// Takes edit `name` back: removes what its items added and puts back what they replaced or
    /// removed, newest item first, and marks every touched day. Refused when a later edit, not
    /// itself undone, changed the same ids (undo that one first).
    public func undo(edit name: EditName, now: Date) throws -> UndoReport {
        try serialized {
            try db.write {
                let entries = try db.statement("""
                    SELECT seq, agent_id, added FROM edit_journal WHERE edit = ? AND undone IS NULL ORDER BY seq DESC
                    """).rows([.text(name.rawValue)]) { (seq: $0.int64(0), agentID: $0.text(1), added: $0.isNull(2) ? nil : $0.int64(2)) }
                guard let newest = entries.first?.seq else {
                    let known = try db.statement("SELECT 1 FROM edit_journal WHERE edit = ?").first([.text(name.rawValue)]) { _ in true } ?? false
                    throw known ? EditJournalError.alreadyUndone(name) : EditJournalError.unknownEdit(name)
                }
                let later = try db.statement("""
                    SELECT edit FROM edit_journal WHERE seq > ? AND undone IS NULL AND edit <> ? AND agent_id = ? LIMIT 1
                    """)
                for entry in entries {
                    if let blocker = try later.first([.integer(newest), .text(name.rawValue), .text(entry.agentID)], { $0.text(0) }) {
                        throw EditJournalError.laterEdit(blocker)
                    }
                }
                var days = Set<String>()
                for entry in entries {
                    if let added = entry.added,
                       let row = try db.statement("SELECT day, end, metric, total, start FROM record WHERE id = ? AND origin = 1")
                        .first([.integer(added)], { ($0.text(0), $0.int64(1), $0.text(2), $0.int64(3) == 1, $0.int64(4)) }) {
                        if let day = CalendarDay(row.0) { days.formUnion(span(day, row.1)) }
                        try staleTotals(metric: row.2, total: row.3, start: row.4, end: row.1)
                        try db.statement("DELETE FROM record WHERE id = ? AND origin = 1").run([.integer(added)])
                    }
                    if let row = try db.statement("SELECT day, end, metric, total, start FROM edit_displaced WHERE seq = ?")
                        .first([.integer(entry.seq)], { ($0.text(0), $0.int64(1), $0.text(2), $0.int64(3) == 1, $0.int64(4)) }) {
                        if let day = CalendarDay(row.0) { days.formUnion(span(day, row.1)) }
                        try staleTotals(metric: row.2, total: row.3, start: row.4, end: row.1)
                        // Back under its own rid when that is free, so the day's records come back in
                        // their old order and the rebuilt body is the one from before.
                        try db.statement("""
                            INSERT INTO record (rid, id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin, seen)
                            SELECT CASE WHEN EXISTS (SELECT 1 FROM record WHERE rid = d.rid) THEN NULL ELSE d.rid END,
                                   id, metric, total, source, device, start, end, value, unit, stage, activity, duration, day, origin, seen
                            FROM edit_displaced d WHERE seq = ?
                            """).run([.integer(entry.seq)])
                    }
                    try db.statement("UPDATE edit_journal SET undone = ? WHERE seq = ?").run([.real(now.timeIntervalSince1970), .integer(entry.seq)])
                }
                try mark(days)
                return UndoReport(items: entries.count, days: days.sorted().compactMap { CalendarDay($0) })
            }
        }
    }

    // MARK: Journal

    /// Every journal entry, oldest first.
    public func editJournal() throws -> [EditJournalEntry] {
        try serialized {
            try db.statement("""
                SELECT j.edit, j.item, j.at, j.op, j.agent_id, j.metric, j.start, j.end, j.value, j.unit, j.stage, j.version, j.undone,
                       d.metric, d.value, d.unit, d.stage, d.start, d.end
                FROM edit_journal j LEFT JOIN edit_displaced d ON d.seq = j.seq ORDER BY j.seq
                """).rows { row in
                EditJournalEntry(
                    edit: row.text(0), item: Int(row.int64(1)), at: row.double(2), op: row.text(3), agentID: row.text(4),
                    metric: row.optionalText(5), start: row.isNull(6) ? nil : row.int64(6), end: row.isNull(7) ? nil : row.int64(7),
                    value: row.isNull(8) ? nil : row.double(8), unit: row.optionalText(9), stage: row.optionalText(10),
                    version: row.isNull(11) ? nil : row.int64(11), undone: row.isNull(12) ? nil : row.double(12),
                    displaced: row.isNull(13) ? nil : EditJournalEntry.Displaced(
                        metric: row.text(13), value: row.isNull(14) ? nil : row.double(14), unit: row.optionalText(15),
                        stage: row.optionalText(16), start: row.int64(17), end: row.int64(18)))
            }
        }
    }

    // MARK: Replay history

    public func answeredEdits() throws -> [ReplayRule.AnsweredEdit] {
        try serialized {
            try db.statement("SELECT digest, name, signed_at, answered_at FROM answered_edit").rows { row in
                ReplayRule.AnsweredEdit(digest: row.blob(0), name: try EditName(row.text(1)), signedAt: row.int64(2),
                                        answeredAt: Int64(row.double(3)))
            }
        }
    }

    /// Records an edit the service accepted an outcome for, drops its unsent outcome, and prunes
    /// the history to the window.
    public func recordAnswered(_ edit: ReplayRule.AnsweredEdit) throws {
        try serialized {
            try db.write {
                try db.statement("DELETE FROM applied_edit WHERE name = ?").run([.text(edit.name.rawValue)])
                try db.statement("INSERT OR REPLACE INTO answered_edit (digest, name, signed_at, answered_at) VALUES (?, ?, ?, ?)")
                    .run([.blob(edit.digest), .text(edit.name.rawValue), .integer(edit.signedAt), .real(Double(edit.answeredAt))])
                let newest = try db.statement("SELECT max(signed_at) FROM answered_edit").first { $0.int64(0) } ?? edit.signedAt
                try db.statement("DELETE FROM answered_edit WHERE signed_at < ?").run([.integer(newest - ReplayRule.windowSeconds)])
            }
        }
    }
}

/// An item the store refuses for a reason beyond §8's item rules (a put whose identity, start
/// included, an imported record holds; a delete of an id never written).
struct AgentItemRefusal: Error {
    let code: OutcomeCode
}

public struct UndoReport: Sendable, Equatable {
    public let items: Int
    public let days: [CalendarDay]
}

/// One thing an agent did, as the journal keeps it.
public struct EditJournalEntry: Sendable, Equatable {
    public struct Displaced: Sendable, Equatable {
        public let metric: String
        public let value: Double?
        public let unit: String?
        public let stage: String?
        public let start: Int64
        public let end: Int64
    }

    public let edit: String
    public let item: Int
    public let at: Double
    public let op: String
    public let agentID: String
    public let metric: String?
    public let start: Int64?
    public let end: Int64?
    public let value: Double?
    public let unit: String?
    public let stage: String?
    public let version: Int64?
    public let undone: Double?
    public let displaced: Displaced?

    /// The entry as `efferent edits --local --json` prints it.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["edit": .string(edit), "item": .number(Double(item)), "at": .number(at),
                                           "op": .string(op), "id": .string(agentID), "undone": .bool(undone != nil)]
        if let metric { object["metric"] = .string(metric) }
        if let value { object["value"] = .number(value) }
        if let unit { object["unit"] = .string(unit) }
        if let stage { object["stage"] = .string(stage) }
        if let start { object["start"] = .number(Double(start)) }
        if let end { object["end"] = .number(Double(end)) }
        if let old = displaced {
            var entry: [String: JSONValue] = ["metric": .string(old.metric), "start": .number(Double(old.start)), "end": .number(Double(old.end))]
            if let value = old.value { entry["value"] = .number(value) }
            if let stage = old.stage { entry["stage"] = .string(stage) }
            object["displaced"] = .object(entry)
        }
        return .object(object)
    }
}

public enum EditJournalError: Error, Equatable, CustomStringConvertible {
    case unknownEdit(EditName)
    case alreadyUndone(EditName)
    case laterEdit(String)

    public var description: String {
        switch self {
        case let .unknownEdit(name): "This writer never applied an edit named \(name); `efferent edits --local` lists the ones it did."
        case let .alreadyUndone(name): "Edit \(name) has already been undone."
        case let .laterEdit(other): "Edit \(other) changed the same entries later; undo it first."
        }
    }
}
