import EfferentCore

/// Every reading of the raw metrics, as `efferent samples` lists them (an event whose span meets
/// the range, each on the wall clock of the day it was filed under), written into `collection`
/// Bundles of at most about `maxBytes` each and handed out one at a time (`next()`): a year of
/// heart rate is read a window of days at a time and leaves as files, never held whole. A
/// total's readings are its hour totals, the finest the archive keeps (its day totals are in the
/// document).
public final class RawReadingFiles {
    /// Plaintext bytes a file of readings holds at most, about (it is cut after the reading that passes it).
    public static let defaultFileBytes = 8 << 20

    private let bundle: ShareBundle
    private let source: EventSource
    private let maxBytes: Int
    private let wanted: Set<String>
    private let clock = LocalClock()
    private var windows: [(first: CalendarDay, last: CalendarDay)]?
    private var windowIndex = 0
    private var events: [ArchiveEvent] = []
    private var eventIndex = 0
    private var entries: JSONStream
    private var next = 2
    /// Readings written so far.
    public private(set) var readings = 0

    public init(bundle: ShareBundle, source: EventSource, maxBytes: Int = RawReadingFiles.defaultFileBytes) {
        self.bundle = bundle
        self.source = source
        self.maxBytes = maxBytes
        wanted = Set(bundle.content.raw)
        entries = JSONStream(reservingCapacity: maxBytes + (64 << 10), elements: true)
    }

    /// The next file's JSON, or nil when every reading has gone into one.
    public func nextFile() throws -> [UInt8]? {
        guard !wanted.isEmpty else { return nil }
        let range = bundle.content.range
        if windows == nil {
            let from = range.since.previous, through = range.until
            windows = range.isEmpty ? [] : DayRange.windows(of: try source.days().filter { $0 >= from && $0 <= through })
        }
        while true {
            if eventIndex >= events.count {
                guard let windows, windowIndex < windows.count else { return entries.count > 0 ? flush() : nil }
                let window = windows[windowIndex]
                windowIndex += 1
                let wanted = self.wanted
                events = try source.events(from: window.first, through: window.last, matching: { wanted.contains($0) })
                eventIndex = 0
                continue
            }
            let item = events[eventIndex]
            eventIndex += 1
            try write(item, range: range)
            if entries.count >= maxBytes { return flush() }
        }
    }

    private func write(_ item: ArchiveEvent, range: DayRange) throws {
        let event = item.event
        guard let value = event.value, try clock.overlaps(item, range) else { return }
        if MetricCatalogue.isTotal(event.metric) || event.bucket != nil, event.bucket != .hour { return }
        let coding = FHIRTerms.coding(of: event.metric, unit: event.unit ?? MetricCatalogue.unit(of: event.metric))
        let url = bundle.ids.fullUrl(next)
        let patient = bundle.patientURL
        let clock = clock
        next += 1
        readings += 1
        entries.object { s in
            s.member("fullUrl", url)
            s.object("resource") { s in
                s.member("resourceType", "Observation")
                s.member("status", "final")
                if let category = coding.category { s.category(category) }
                s.object("code") { s in
                    s.array("coding") { s in
                        if let loinc = coding.loinc { s.coding(FHIRTerms.loinc, loinc.code) }
                        s.coding(FHIRTerms.metricSystem, event.metric)
                    }
                }
                s.reference("subject", patient)
                if event.end > event.start {
                    s.object("effectivePeriod") { s in
                        s.member("start", clock.shown(event.start, in: item.timeZone))
                        s.member("end", clock.shown(event.end, in: item.timeZone))
                    }
                } else {
                    s.member("effectiveDateTime", clock.shown(event.start, in: item.timeZone))
                }
                s.key("valueQuantity")
                s.quantity(value, coding)
                if let source = event.source { s.object("device") { s in s.member("display", source) } }
            }
        }
    }

    /// The entries written so far as one collection Bundle (with the Patient they refer to).
    private func flush() -> [UInt8] {
        var file = JSONStream(reservingCapacity: entries.count + 4096)
        let written = entries
        file.object { s in
            s.member("resourceType", "Bundle")
            s.member("type", "collection")
            s.member("timestamp", LocalClock.iso(bundle.generated))
            s.array("entry") { s in
                s.object { s in
                    s.member("fullUrl", bundle.patientURL)
                    s.object("resource") { s in bundle.patient(&s) }
                }
                s.elements(of: written)
            }
        }
        entries = JSONStream(reservingCapacity: maxBytes + (64 << 10), elements: true)
        return file.bytes
    }
}
