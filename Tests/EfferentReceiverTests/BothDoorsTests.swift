import EfferentClient
import EfferentCore
@testable import EfferentReceiver
import EfferentSQLite
import EfferentTestSupport
@testable import EfferentWriter
import Foundation
import Testing

/// Decision A.14: a phone sample and an export record of the same HealthKit sample are one record,
/// whichever door came first; deletions by UUID reach it whichever door brought it; a full
/// export's absences never remove what only the phone sent; look-alikes stay apart.
@Suite struct BothDoorsTests {
    static let first = CalendarDay("2024-06-01")!
    static let days = 3
    static let zone = ZoneCalendar(identifier: "UTC")!

    final class Scratch {
        let directory = NSTemporaryDirectory() + "efferent-doors-" + UUID().uuidString
        init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
        func store(_ name: String) throws -> SourceStore { try SourceStore(path: "\(directory)/\(name).sqlite", zone: BothDoorsTests.zone) }
    }

    /// A whole export's text imported as `efferent import` does.
    @discardableResult
    static func importing(_ xml: String, into store: SourceStore, in scratch: Scratch) throws -> ImportSession {
        try importing([("export.xml", xml)], into: store, in: scratch)
    }

    /// An unpacked export's files (`export.xml`, `workout-routes/…`) imported as `efferent import` does.
    @discardableResult
    static func importing(_ files: [(path: String, text: String)], into store: SourceStore, in scratch: Scratch) throws -> ImportSession {
        let folder = scratch.directory + "/export-\(UUID().uuidString)/apple_health_export"
        for (path, text) in files {
            let url = URL(fileURLWithPath: folder + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let session = try store.beginImport(source: "export.xml", format: "apple-xml", full: true)
        _ = try ExportImporter.read(URL(fileURLWithPath: folder + "/export.xml"), into: session)
        try session.finish()
        return session
    }

    /// Batches stored as the receiver stores them (read, then committed in one transaction each).
    @discardableResult
    static func receiving(_ texts: [String], into writer: SourceStore) throws -> ReceiverStore.PhoneBatchCounts {
        let store = try ReceiverStore(store: writer)
        let run = try store.beginPhoneRun(source: "test phone")
        var total = ReceiverStore.PhoneBatchCounts()
        for text in texts {
            let reader = store.batchReader(run: run)
            try reader.feed(Array(text.utf8))
            let counts = try store.commit(try reader.finish(), token: 1, run: run)
            total.accepted += counts.accepted
            total.deleted += counts.deleted
            total.records += counts.records
        }
        return total
    }

    /// Each day's events with their multiplicity, and each day's sealed body.
    static func archive(_ store: SourceStore) throws -> [String: ([DayEvent: Int], DayBody)] {
        let builder = DayBuilder(store: store, hourlyFrom: nil)
        var days = [String: ([DayEvent: Int], DayBody)]()
        for offset in -1...Self.days {
            let day = first.adding(days: offset)
            days[day.description] = (try builder.events(for: day).reduce(into: [:]) { $0[$1, default: 0] += 1 }, try builder.body(for: day))
        }
        return days
    }

    static func count(_ store: SourceStore) throws -> Int {
        try store.serialized { try store.db.statement("SELECT count(*) FROM record").first { Int($0.int64(0)) } ?? -1 }
    }

    static func expectSame(_ built: SourceStore, as single: SourceStore, _ what: String) throws {
        #expect(try count(built) == count(single), "\(what): records")
        let (got, want) = (try archive(built), try archive(single))
        for day in want.keys.sorted() {
            #expect(got[day]?.0 == want[day]?.0, "\(what): events of \(day)")
            #expect(got[day]?.1 == want[day]?.1, "\(what): body of \(day)")
        }
    }

    /// Import then the phone's backfill builds what the import alone built; the backfill then an
    /// import builds what the backfill alone built (the first door's record stands). Deletions by
    /// UUID then take records from both, and an export that lacks what only the phone sent
    /// removes none of it.
    @Test func bothDoorsInEitherOrderBuildTheArchiveOfOneDoor() throws {
        let scratch = try Scratch()
        let history = TwoDoorHistory(seed: 28, first: Self.first.startUnixSeconds, days: Self.days)
        let batches = history.batches(size: 40)
        let exportOnly = try scratch.store("export"), phoneOnly = try scratch.store("phone")
        try Self.importing(history.exportFiles(), into: exportOnly, in: scratch)
        try Self.receiving(batches, into: phoneOnly)
        // Each sample a record; each workout four statistics more (energy, heart rate minimum, mean
        // and maximum) and distance when it covers any, two events, its activity and seven records a
        // route fix (its heart-rate series is its readings, which are samples of their own); six a
        // day's rings; a heartbeat series one a beat; an ECG its sampling frequency and one a voltage more.
        let workouts = history.samples.filter { $0.kind == "workout" }
        let parts = workouts.reduce(0) { $0 + 4 + ($1.distance == nil ? 0 : 1) + 2 + 1 + 7 * $1.route.count } + 6 * history.rings.count
            + history.samples.reduce(0) { $0 + ($1.kind == "heartbeatSeries" ? $1.beats.count - 1 : 0) + ($1.kind == "ecg" ? 1 + $1.voltages.count : 0) }
        #expect(history.samples.contains { $0.kind == "ecg" } && history.samples.contains { $0.kind == "heartbeatSeries" })
        #expect(try Self.count(exportOnly) == history.samples.count + parts)
        #expect(try Self.count(phoneOnly) == Self.count(exportOnly))

        // Import, then the backfill: every sample adopts its export row, nothing is added.
        let importFirst = try scratch.store("import-first")
        try Self.importing(history.exportFiles(), into: importFirst, in: scratch)
        let counts = try Self.receiving(batches, into: importFirst)
        // Nothing added but the rings, which the phone replaces day by day, as either door does.
        #expect(counts.accepted == history.samples.count && counts.records == 6 * history.rings.count, "\(counts.records) records added")
        try Self.expectSame(importFirst, as: exportOnly, "import → phone")

        // The backfill, then an export that lacks a few samples the phone sent (its span covers
        // them): every export record meets its phone row, and nothing only the phone sent goes.
        let phoneFirst = try scratch.store("phone-first")
        try Self.receiving(batches, into: phoneFirst)
        let onlyPhone = Set(stride(from: 3, to: history.samples.count - 3, by: 37).map { history.samples[$0].uuid })
        let session = try Self.importing(history.exportFiles(excluding: onlyPhone), into: phoneFirst, in: scratch)
        #expect(session.added == 0 && session.removed == 0)
        try Self.expectSame(phoneFirst, as: phoneOnly, "phone → import")
        // And again: a re-import meets the same rows.
        let again = try Self.importing(history.exportFiles(excluding: onlyPhone), into: phoneFirst, in: scratch)
        #expect(again.added == 0 && again.removed == 0)
        // It found them by the identity they took on, without looking for a twin again.
        let rematched = try phoneFirst.serialized {
            try phoneFirst.db.statement("SELECT count(*) FROM record WHERE matched = ?").first([.integer(again.run)]) { $0.int64(0) }
        }
        #expect(rematched == 0)
        try Self.expectSame(phoneFirst, as: phoneOnly, "phone → import → import")

        // A deletion by UUID takes the record whichever door brought it in.
        // Among them an ECG and an HRV reading, whose heartbeat series goes with it.
        var chosen = Set(stride(from: 5, to: history.samples.count, by: 29).map { history.samples[$0].uuid })
        chosen.insert(history.samples.first { $0.kind == "ecg" }!.uuid)
        chosen.insert(history.samples.first { $0.type == "HKQuantityTypeIdentifierHeartRateVariabilitySDNN" }!.uuid)
        let gone = Array(history.withSeries(chosen))
        for store in [importFirst, phoneFirst, phoneOnly] {
            #expect(try Self.receiving([history.deletions(gone)], into: store).deleted == gone.count)
        }
        let exportLess = try scratch.store("export-less")
        try Self.importing(history.exportFiles(excluding: Set(gone)), into: exportLess, in: scratch)
        try Self.expectSame(importFirst, as: exportLess, "import → phone → deletions")
        try Self.expectSame(phoneFirst, as: phoneOnly, "phone → import → deletions")
    }

    /// The backfill's first half, then the export, then the rest: each sample is one record (the
    /// first door's), every record is claimed by its sample's UUID, so deleting every UUID empties
    /// the store.
    @Test func interleavedDoorsKeepOneRecordPerSample() throws {
        let scratch = try Scratch()
        let history = TwoDoorHistory(seed: 29, first: Self.first.startUnixSeconds, days: 2)
        let batches = history.batches(size: 25)
        let exportOnly = try scratch.store("export")
        try Self.importing(history.exportFiles(), into: exportOnly, in: scratch)
        let store = try scratch.store("interleaved")
        try Self.receiving(Array(batches.prefix(batches.count / 2)), into: store)
        let session = try Self.importing(history.exportFiles(), into: store, in: scratch)
        try Self.receiving(Array(batches.suffix(from: batches.count / 2)), into: store)
        #expect(session.added > 0 && session.removed == 0)
        #expect(try Self.count(store) == Self.count(exportOnly))
        let (built, single) = (try Self.archive(store), try Self.archive(exportOnly))
        for day in single.keys.sorted() {
            #expect(built[day]?.0.values.reduce(0, +) == single[day]?.0.values.reduce(0, +), "events of \(day)")
        }
        // Rings are a day's figures, no sample's: no UUID claims them.
        let unclaimed = try store.serialized {
            try store.db.statement("SELECT count(*) FROM record WHERE sample IS NULL AND metric NOT LIKE 'activitySummary.%'").first { $0.int64(0) }
        }
        #expect(unclaimed == 0)
        #expect(try Self.receiving([history.deletions(history.samples.map(\.uuid))], into: store).deleted == history.samples.count)
        #expect(try Self.count(store) == 6 * history.rings.count, "only the rings are left")
    }

    /// Lines made by hand, at one second: a phone's samples and an export's records.
    static let rate = "HKQuantityTypeIdentifierHeartRate"
    static let at: Double = 1_717_243_200   // 2024-06-01 12:00:00 UTC

    static func phoneLine(_ uuid: Int, value: Double, milliseconds: Double, type: String = rate, unit: String = "count/min",
                          source: String = "Apple Watch", seconds: Double = at) -> String {
        let start = seconds * 1000 + milliseconds
        return PulsBatchText.quantity(uuid: String(format: "CCCCCCCC-0000-4000-8000-%012d", uuid), type: type, start: start, end: start,
                                      value: value, unit: unit, source: source)
    }

    static func exportLines(_ lines: [(value: String, type: String, unit: String, source: String, seconds: Double)]) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss '+0000'"
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
        for line in lines {
            let date = formatter.string(from: Date(timeIntervalSince1970: line.seconds))
            text += " <Record type=\"\(line.type)\" sourceName=\"\(line.source)\" unit=\"\(line.unit)\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"\(line.value)\"/>\n"
        }
        return text + "</HealthData>\n"
    }

    static func heartRates(_ values: [String], seconds: Double = at) -> String {
        exportLines(values.map { ($0, rate, "count/min", "Apple Watch", seconds) })
    }

    /// Two real readings of one value in one second from one source are two records, whichever
    /// door came first and however many export lines stand for them: n look-alike export records
    /// meet at most n phone samples, and the other way round.
    @Test func lookAlikesStayTwoInEitherOrder() throws {
        let scratch = try Scratch()
        let pair = [Self.phoneLine(1, value: 72, milliseconds: 120.5), Self.phoneLine(2, value: 72, milliseconds: 870.25)]

        let phoneFirst = try scratch.store("a")
        try Self.receiving([PulsBatchText.batch(samples: pair)], into: phoneFirst)
        try Self.importing(Self.heartRates(["72", "72"]), into: phoneFirst, in: scratch)
        #expect(try Self.count(phoneFirst) == 2)
        let matched = try phoneFirst.serialized { try phoneFirst.db.statement("SELECT count(*) FROM record WHERE matched IS NOT NULL").first { $0.int64(0) } }
        // The first line met a phone row, which took its identity; the second, the same text, is
        // that record by its identity (as in an export alone); the other reading stays its own.
        #expect(matched == 1)
        // An export with one line meets one phone row and adds nothing.
        #expect(try Self.importing(Self.heartRates(["72"]), into: phoneFirst, in: scratch).added == 0)
        #expect(try Self.count(phoneFirst) == 2)

        let importFirst = try scratch.store("b")
        try Self.importing(Self.heartRates(["72"]), into: importFirst, in: scratch)
        let counts = try Self.receiving([PulsBatchText.batch(samples: pair)], into: importFirst)
        #expect(counts.records == 1, "one sample adopted the export's row, the other is a record of its own")
        #expect(try Self.count(importFirst) == 2)
    }

    /// Samples that differ in the value past the export's rounding, in the second, in the source
    /// or in the type are not the same sample: both doors' records stay.
    @Test func nearEqualDistinctSamplesStayApart() throws {
        let scratch = try Scratch()
        let energy = "HKQuantityTypeIdentifierActiveEnergyBurned"
        let cases: [(phone: String, export: String)] = [
            (Self.phoneLine(1, value: 72, milliseconds: 500), Self.heartRates(["73"])),
            (Self.phoneLine(1, value: 72, milliseconds: 500), Self.heartRates(["72"], seconds: Self.at + 1)),
            (Self.phoneLine(1, value: 72, milliseconds: 500, source: "Anna's iPhone"), Self.heartRates(["72"])),
            (Self.phoneLine(1, value: 10.0, milliseconds: 500, type: energy, unit: "kcal"),
             Self.exportLines([("10.001", energy, "kcal", "Apple Watch", Self.at)])),
        ]
        for (index, (phone, export)) in cases.enumerated() {
            for phoneFirst in [true, false] {
                let store = try scratch.store("case-\(index)-\(phoneFirst)")
                if phoneFirst { try Self.receiving([PulsBatchText.batch(samples: [phone])], into: store) }
                try Self.importing(export, into: store, in: scratch)
                if !phoneFirst { try Self.receiving([PulsBatchText.batch(samples: [phone])], into: store) }
                #expect(try Self.count(store) == 2, "case \(index), phone first: \(phoneFirst)")
            }
        }
        // The same sample through the export's rounding and unit: 71.2345678 kg written as 157.048 lb.
        let mass = "HKQuantityTypeIdentifierBodyMass"
        let kilograms = 71.2345678
        let pounds = TwoDoorHistory.sixDigits(kilograms / 0.45359237)
        for phoneFirst in [true, false] {
            let store = try scratch.store("mass-\(phoneFirst)")
            let phone = PulsBatchText.batch(samples: [Self.phoneLine(9, value: kilograms, milliseconds: 999.5, type: mass, unit: "kg",
                                                                      source: "Anna's iPhone")])
            let export = Self.exportLines([(pounds, mass, "lb", "Anna&apos;s iPhone", Self.at)])
            if phoneFirst { try Self.receiving([phone], into: store) }
            try Self.importing(export, into: store, in: scratch)
            if !phoneFirst { try Self.receiving([phone], into: store) }
            #expect(try Self.count(store) == 1, "\(pounds) lb is \(kilograms) kg; phone first: \(phoneFirst)")
        }
    }

    /// A deletion by UUID removes the export's row the sample adopted; and a phone's buckets stay
    /// the day's total when an export of the same samples comes after them (nothing they cover changed).
    @Test func aDeletionByUUIDRemovesTheAdoptedRowAndBucketsStayFresh() throws {
        let scratch = try Scratch()
        let store = try scratch.store("adopted")
        try Self.importing(Self.heartRates(["72"]), into: store, in: scratch)
        #expect(try Self.receiving([PulsBatchText.batch(samples: [Self.phoneLine(1, value: 72, milliseconds: 1)])], into: store).records == 0)
        #expect(try Self.count(store) == 1)
        let uuid = String(format: "CCCCCCCC-0000-4000-8000-%012d", 1).lowercased()
        #expect(try Self.receiving([PulsBatchText.batch(deletions: [PulsBatchText.deletion(uuid: uuid, type: Self.rate)])], into: store).deleted == 1)
        #expect(try Self.count(store) == 0, "the export's row went with the UUID")

        // Steps from the phone with HealthKit's day bucket (which de-duplicates to less than the sum), then the export.
        let steps = "HKQuantityTypeIdentifierStepCount"
        let day = Self.first
        let bucketed = try scratch.store("bucketed")
        let lines = [Self.phoneLine(2, value: 500, milliseconds: 10, type: steps, unit: "count"),
                     Self.phoneLine(3, value: 300, milliseconds: 20, type: steps, unit: "count", source: "Anna's iPhone")]
        let bucket = PulsBatchText.aggregate(type: steps, unit: "day", start: Double(day.startUnixSeconds) * 1000,
                                             end: Double(day.next.startUnixSeconds) * 1000, value: 650, valueUnit: "count")
        try Self.receiving([PulsBatchText.batch(samples: lines, aggregates: [bucket])], into: bucketed)
        let before = try DayBuilder(store: bucketed, hourlyFrom: nil).events(for: day).filter { $0.kind == .total }
        try Self.importing(Self.exportLines([("500", steps, "count", "Apple Watch", Self.at), ("300", steps, "count", "Anna&apos;s iPhone", Self.at)]),
                           into: bucketed, in: scratch)
        let after = try DayBuilder(store: bucketed, hourlyFrom: nil).events(for: day).filter { $0.kind == .total }
        #expect(before.contains { $0.value == 650 } && after == before, "the bucket still stands: \(after)")

        // The other order: the export, then the phone's samples (adopting its rows) with the bucket.
        let imported = try scratch.store("imported")
        try Self.importing(Self.exportLines([("500", steps, "count", "Apple Watch", Self.at), ("300", steps, "count", "Anna&apos;s iPhone", Self.at)]),
                           into: imported, in: scratch)
        #expect(try Self.receiving([PulsBatchText.batch(samples: lines, aggregates: [bucket])], into: imported).records == 0)
        let totals = try DayBuilder(store: imported, hourlyFrom: nil).events(for: day).filter { $0.kind == .total }
        #expect(totals == before, "the bucket stands for the day: \(totals)")
    }

    /// The app names a family of activities with one word (`snow_sports`, `dance`): its workout is
    /// filed under HealthKit's umbrella case, and meets the export's own case of the family
    /// (downhill skiing, social dance) in either order; a workout of another activity at the same
    /// time stays its own.
    @Test func aFamilyWordMeetsTheExportsOwnCase() throws {
        let scratch = try Scratch()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss '+0000'"
        let (start, end) = (formatter.string(from: Date(timeIntervalSince1970: Self.at)), formatter.string(from: Date(timeIntervalSince1970: Self.at + 3600)))
        for (word, exported, meets) in [("snow_sports", "DownhillSkiing", true), ("dance", "SocialDance", true), ("snow_sports", "Running", false)] {
            let phone = "{\"uuid\":\"\(UUID().uuidString)\",\"type\":\"HKWorkoutTypeIdentifier\",\"kind\":\"workout\",\"start\":\(Self.at * 1000 + 250.5),"
                + "\"end\":\(Self.at * 1000 + 3_600_250.5),\"sourceName\":\"Apple Watch\",\"workout\":{\"activityType\":\"\(word)\",\"duration\":3600}}"
            let export = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <Workout workoutActivityType=\"HKWorkoutActivityType\(exported)\" "
                + "duration=\"60\" durationUnit=\"min\" sourceName=\"Apple Watch\" startDate=\"\(start)\" endDate=\"\(end)\"/>\n</HealthData>\n"
            for phoneFirst in [true, false] {
                let store = try scratch.store("family-\(word)-\(exported)-\(phoneFirst)")
                if phoneFirst { try Self.receiving([PulsBatchText.batch(samples: [phone])], into: store) }
                try Self.importing(export, into: store, in: scratch)
                if !phoneFirst { try Self.receiving([PulsBatchText.batch(samples: [phone])], into: store) }
                let activities = try store.serialized {
                    try store.db.statement("SELECT activity FROM record WHERE metric = 'workout' ORDER BY activity").rows { $0.text(0) }
                }
                // The first door's row stands: the export's own case, or the app's umbrella.
                let expected = meets ? [phoneFirst ? (word == "dance" ? "14" : "40") : String(WorkoutActivity.numbers[exported]!)]
                    : ["37", "40"]
                #expect(activities == expected, "\(word) / \(exported), phone first: \(phoneFirst)")
            }
        }
    }
}
