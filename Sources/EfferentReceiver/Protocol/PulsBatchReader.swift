import EfferentCore
import EfferentCrypto
import EfferentWriter

/// Reads a phone's batch (Puls Sync Protocol v1) as its body arrives, line by line, bounded in
/// memory by the limits: the header first (`schemaVersion` before anything else), then exactly
/// the declared number of lines of each kind in the fixed order (§3.1), each checked by its
/// schema's rules. Sample, route, series and activity-summary lines are mapped to records by the
/// PulsHealth reader `efferent import` uses, into a session that holds them for the batch's one
/// transaction; nothing is stored here.
public final class PulsBatchReader {
    public let limits: PulsLimits
    private let session: ImportSession
    private let mapper: PulsHealthReader
    private var lines: NDJSONLines
    private var batch: PulsBatch?
    /// Lines still expected, by kind.
    private var remaining: [Int] = []
    private var kind = 0
    private var seen: [Int] = Array(repeating: 0, count: PulsLineKind.allCases.count)
    private var routePoints = 0
    private var seriesPoints = 0
    private var aggregateIndex: [PulsAggregate.Identity: Int] = [:]
    private var summaryIndex: [String: Int] = [:]
    private var failure: PulsBatchError?
    /// Body bytes taken so far (after any gzip).
    public private(set) var bytes = 0
    private var hash = Sodium.SHA256Stream()

    /// Lines are mapped into `session`, a holding one (`SourceStore.holdingSession`);
    /// `earlierWorkout` finds a workout earlier batches brought (by lower-case UUID), whose source
    /// its route and series lines are filed under.
    public init(session: ImportSession, limits: PulsLimits, earlierWorkout: ((String) throws -> SourceRecord?)? = nil) {
        self.session = session
        self.limits = limits
        mapper = PulsHealthReader(sink: session, label: "batch")
        mapper.earlierWorkout = earlierWorkout
        lines = NDJSONLines(label: "batch", maximumLineBytes: limits.lineBytes)
    }

    /// The next piece of the body; a piece may end anywhere. After a refusal the rest is ignored.
    public func feed(_ piece: [UInt8]) throws(PulsBatchError) {
        if let failure { throw failure }
        bytes += piece.count
        hash.update(piece)
        guard bytes <= limits.inflatedBytes else {
            throw remember(.tooLarge("the batch is over this receiver's limit of \(limits.inflatedBytes >> 20) MiB once inflated"))
        }
        do {
            try lines.feed(piece) { line, number in try self.take(line, number) }
        } catch {
            throw remember(Self.refusal(error, lineBytes: limits.lineBytes))
        }
    }

    /// The body has ended: the batch, once every declared line has come.
    public func finish() throws(PulsBatchError) -> PulsBatch {
        if let failure { throw failure }
        do {
            try lines.finish { line, number in try self.take(line, number) }
        } catch {
            throw remember(Self.refusal(error, lineBytes: limits.lineBytes))
        }
        guard var batch else { throw remember(.malformed("the body holds no header line")) }
        for kind in PulsLineKind.allCases where remaining[kind.rawValue] > 0 {
            throw remember(.malformed("the header declares \(batch.header.count(kind)) \(kind.name) lines but \(seen[kind.rawValue]) follow"))
        }
        batch.records = session.takeHeld()
        batch.leftOut = session.notCarried
        batch.bytes = bytes
        batch.digest = hash.finish()
        return batch
    }

    private func remember(_ error: PulsBatchError) -> PulsBatchError {
        failure = failure ?? error
        return failure!
    }

    private static func refusal(_ error: any Error, lineBytes: Int) -> PulsBatchError {
        if let error = error as? PulsBatchError { return error }
        // The only other thing the line splitter throws: a line over the limit.
        return .tooLarge("a line is longer than this receiver's limit of \(lineBytes >> 20) MiB")
    }

    private func take(_ bytes: [UInt8], _ number: Int) throws(PulsBatchError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw .malformed("line \(number) is not valid JSON") }
        guard let members = value.objectValue else { throw .malformed("line \(number) is not a JSON object") }
        guard batch != nil else {
            let header = try PulsHeader(value, limits: limits)
            batch = PulsBatch(header: header)
            remaining = header.counts
            return
        }
        let kind = try Self.kind(of: members, number)
        while self.kind < remaining.count, remaining[self.kind] == 0 { self.kind += 1 }
        guard self.kind < remaining.count else { throw .malformed("line \(number) follows the lines the header declares") }
        guard kind.rawValue == self.kind else {
            throw .malformed("line \(number) is a \(kind.name) line where a \(PulsLineKind(rawValue: self.kind)!.name) line must stand (the header's counts fix the order)")
        }
        remaining[self.kind] -= 1
        seen[kind.rawValue] += 1
        let place = PulsPlace.line(number: number, kind: kind, ordinal: seen[kind.rawValue])
        try read(kind, value, members, place: place, number)
    }

    /// A wrapped line has one of the known wrapper keys; a sample has none (§3.3). An object whose
    /// only member is an object under any other name is a wrapper this version does not know.
    static func kind(of members: [String: JSONValue], _ number: Int) throws(PulsBatchError) -> PulsLineKind {
        // The six wrapper names looked up, rather than every member's name hashed (a sample has a dozen).
        var wrapper: PulsLineKind?
        for (name, kind) in PulsLineKind.wrappers where members[name] != nil {
            if wrapper != nil { throw .malformed("line \(number) carries more than one wrapper key") }
            wrapper = kind
        }
        if let wrapper { return wrapper }
        if members.count == 1, let (key, inner) = members.first, inner.objectValue != nil, key != "uuid" {
            throw .malformed("line \(number) is wrapped in \"\(key.prefix(40))\", a line type protocol version 1 does not define")
        }
        return .sample
    }

    private func read(_ kind: PulsLineKind, _ value: JSONValue, _ members: [String: JSONValue], place: PulsPlace, _ number: Int) throws(PulsBatchError) {
        switch kind {
        case .sample:
            let sample = try PulsSample(try PulsFields(value, place: place))
            let records = try map(value, number, sample: true, quantityWithoutValue: sample.kind == "quantity" && members["value"]?.numberValue == nil)
            batch!.samples.append(.init(line: sample, records: records))
        case .deletion:
            batch!.deletions.append(try PulsDeletion(try PulsFields(members["deleted"], place: place)))
        case .route:
            let points = try PulsPoints(route: try PulsFields(members["route"], place: place), limits: limits)
            routePoints += points.times.count
            guard routePoints <= limits.pointsPerBatch else { throw .tooLarge("\(place): more than \(limits.pointsPerBatch) route points in one batch") }
            batch!.routes.append(.init(line: points, records: try map(value, number)))
        case .series:
            let points = try PulsPoints(series: try PulsFields(members["series"], place: place), limits: limits)
            seriesPoints += points.times.count
            guard seriesPoints <= limits.pointsPerBatch else { throw .tooLarge("\(place): more than \(limits.pointsPerBatch) series points in one batch") }
            batch!.series.append(.init(line: points, records: try map(value, number)))
        case .aggregate:
            let aggregate = try PulsAggregate(try PulsFields(members["aggregate"], place: place))
            if let index = aggregateIndex[aggregate.identity] {
                batch!.aggregates[index] = aggregate
            } else {
                aggregateIndex[aggregate.identity] = batch!.aggregates.count
                batch!.aggregates.append(aggregate)
            }
        case .activitySummary:
            let summary = try PulsActivitySummary(try PulsFields(members["activitySummary"], place: place), line: members["activitySummary"]!)
            let mapped = PulsBatch.Mapped(line: summary, records: try map(value, number))
            if let index = summaryIndex[summary.localDate] {
                batch!.summaries[index] = mapped
            } else {
                summaryIndex[summary.localDate] = batch!.summaries.count
                batch!.summaries.append(mapped)
            }
        case .profile:
            batch!.profile = try PulsProfile(try PulsFields(members["profile"], place: place))
        }
    }

    /// The line's records, by the import's reader. A line the schema accepts but the archive
    /// cannot hold (a quantity without a value, a sleep stage HealthKit does not define, a beat
    /// outside the calendar) keeps no records and is named as left out: the batch still succeeds,
    /// since refusing it would stall the phone on a line no retry can change (§7.2).
    private func map(_ line: JSONValue, _ number: Int, sample: Bool = false, quantityWithoutValue: Bool = false) throws(PulsBatchError) -> Range<Int> {
        let start = session.heldCount
        guard !quantityWithoutValue else {
            try? session.leftOut(LeftOut(line["type"]?.stringValue ?? "sample", .unreadable("no numeric value")))
            return start..<start
        }
        do {
            if sample { try mapper.sample(object: line, number) } else { try mapper.read(object: line, number) }
        } catch {
            session.dropHeld(from: start)
            try? session.leftOut(LeftOut(line["type"]?.stringValue ?? "line", .unreadable("a line the archive cannot hold as it is")))
        }
        return start..<session.heldCount
    }
}
