import EfferentClient
import EfferentCore
import EfferentReceiver
import EfferentWriter

/// The bodies of Efferent's libFuzzer targets: each takes arbitrary bytes and drives one parser of
/// outside input. A parser may refuse the bytes; it must never trap, hang or allocate without
/// bound. Each also checks a property that must hold whenever the parser accepts.
public enum FuzzEntry {
    /// `JSONParser`: accepted text re-serialises canonically and parses back to the same value.
    public static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return }
        guard let canonical = try? value.canonicalBytes() else { fatalError("a parsed value did not serialise") }
        guard (try? JSONParser.parse(canonical)) == value else { fatalError("canonical JSON did not read back") }
    }

    /// `Frame.unpack` (upload bodies and range answers): an accepted frame packs back to the same bytes.
    public static func frame(_ bytes: [UInt8]) {
        guard let days = try? Frame.unpack(bytes, allowingEmpty: true) else { return }
        if days.isEmpty { guard bytes.isEmpty else { fatalError("bytes vanished") }; return }
        guard (try? Frame.pack(days)) == bytes else { fatalError("an accepted frame did not pack back to its bytes") }
    }

    /// The day-body decoder and expansion: an accepted layout-2 body re-encodes canonically to
    /// a body that decodes to the same events.
    public static func day(_ bytes: [UInt8]) {
        guard let decoded = try? DayBody(bytes: bytes).decoded() else { return }
        _ = try? decoded.ndjson(day: CalendarDay(year: 2026, month: 8, day: 7))
        guard case let .columnar(day) = decoded else { return }
        // Every id built in the string's own storage (`String(utf8Capacity:)`, an audited unsafe step).
        for event in day.expandedEvents() where event.id.isEmpty { fatalError("an event without an id") }
        let canonical = DayBody(events: day.events, timeZone: day.timeZone)
        guard case let .columnar(again)? = try? canonical.decoded() else { fatalError("a canonical body did not decode") }
        guard again.events.sorted(by: Self.order) == day.events.sorted(by: Self.order) else { fatalError("events changed on re-encoding") }
        guard DayBody(events: again.events.reversed(), timeZone: again.timeZone) == canonical else { fatalError("encoding depends on order") }
    }

    /// `Handoff(parsing:)`: an accepted handoff renders to a text that parses to the same archive.
    public static func handoff(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        for checking in [true, false] {
            guard let handoff = try? Handoff(parsing: text, checkingInstruction: checking) else { continue }
            guard let again = try? Handoff(parsing: handoff.text) else { fatalError("a rendered handoff did not parse") }
            guard again.bucket == handoff.bucket, again.endpoint == handoff.endpoint,
                  (again.editorKey == nil) == (handoff.editorKey == nil) else { fatalError("a handoff changed on rendering") }
        }
    }

    /// Edit unpacking (plaintext and deflated): accepted items that validate pack back to the same items.
    public static func edit(_ bytes: [UInt8]) {
        _ = try? EditPack.unpack(bytes)
        guard let items = try? EditPack.items(fromPlaintext: bytes) else { return }
        guard let plaintext = try? EditPack.plaintext(items, now: Int64.max / 2) else { return }
        guard (try? EditPack.items(fromPlaintext: plaintext)) == items else { fatalError("edit items changed on packing") }
    }

    /// The Apple Health XML reader, its GPX and ECG companions' readers and both NDJSON readers,
    /// fed the bytes in two chunks: they may refuse, and whatever they accept must be whole records.
    public static func export(_ bytes: [UInt8]) {
        let half = bytes.count / 2
        let sink = CountingSink()
        let xml = HealthExportReader(sink: sink, label: "fuzz.xml")
        if (try? xml.feed(Array(bytes[..<half]))) != nil, (try? xml.feed(Array(bytes[half...]))) != nil { _ = try? xml.finish() }
        let events = EfferentEventReader(sink: sink, label: "fuzz.ndjson")
        if (try? events.feed(bytes)) != nil { _ = try? events.finish() }
        let puls = PulsHealthReader(sink: sink, label: "fuzz.ndjson")
        if (try? puls.feed(bytes)) != nil { _ = try? puls.finish() }
        let gpx = GPXRouteReader(file: "workout-routes/fuzz.gpx", sink: sink, source: "fuzz")
        if (try? gpx.feed(Array(bytes[..<half]))) != nil, (try? gpx.feed(Array(bytes[half...]))) != nil { _ = try? gpx.finish() }
        let ecg = ECGReader(sink: sink, file: "electrocardiograms/fuzz.csv")
        if (try? ecg.feed(bytes)) != nil { _ = try? ecg.finish() }
        for record in sink.records where !(record.start.isFinite && record.end.isFinite) { fatalError("a record with a non-finite instant") }
        pulsBatch(bytes)
    }

    /// A receiver's reader of phone batches (the Puls Sync Protocol's framing and schemas), fed the
    /// bytes in two pieces: an accepted batch holds exactly the lines its header declares.
    static func pulsBatch(_ bytes: [UInt8]) {
        guard let store = batchStore else { return }
        let reader = PulsBatchReader(session: store.holdingSession(run: 0), limits: PulsLimits())
        let half = bytes.count / 2
        guard (try? reader.feed(Array(bytes[..<half]))) != nil, (try? reader.feed(Array(bytes[half...]))) != nil,
              let batch = try? reader.finish() else { return }
        let header = batch.header
        guard batch.samples.count == header.count(.sample), batch.deletions.count == header.count(.deletion),
              batch.routes.count == header.count(.route), batch.series.count == header.count(.series),
              batch.aggregates.count <= header.count(.aggregate), batch.summaries.count <= header.count(.activitySummary),
              (batch.profile != nil) == (header.count(.profile) == 1) else { fatalError("an accepted batch does not hold what its header declares") }
    }

    /// An in-memory writer store for the batch reader (which maps lines into its zone's days).
    static let batchStore: SourceStore? = ZoneCalendar(identifier: "Europe/Berlin").flatMap {
        try? SourceStore(path: ":memory:", zone: $0)
    }

    final class CountingSink: ExportSink {
        var records: [SourceRecord] = []
        func record(_ record: SourceRecord) throws { if records.count < 1000 { records.append(record) } }
        func activitySummary(_ summary: ActivitySummaryRecord) throws {}
    }

    private static func order(_ a: DayEvent, _ b: DayEvent) -> Bool {
        "\(a)" < "\(b)"
    }
}
