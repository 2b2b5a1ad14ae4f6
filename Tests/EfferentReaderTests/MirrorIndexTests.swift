import EfferentClient
import EfferentCore
import EfferentTestSupport
import Foundation
import Testing
@testable import EfferentReader

/// The mirror's index (`index.bin`) answers as the days do, to the byte, for a year of every kind
/// of series; it follows every sync (new days, changed days, days forgotten); and it is read again
/// from the days whenever a day's fingerprint differs from the one it recorded.
@Suite struct MirrorIndexTests {
    static func day(_ text: String) -> CalendarDay { CalendarDay(text)! }
    static let first = day("2024-01-01")

    /// A year: hour and day totals (steps, decimals of energy, a total the catalogue does not
    /// know), readings at random moments (integer heart rate from two sources, decimals of weight,
    /// fractions of oxygen with and without a unit), sleep, workouts with a statistic; a week in
    /// New York and days in Tokyo; nights with naps, time in bed, stretches without a stage; two heart-rate readings filed under the day after the local day
    /// they start on (so one local day is fed by two archive days); and empty days.
    static func year() throws -> [(CalendarDay, String)] {
        var random = SplitMix64(seed: 2929)
        return try (0..<366).map { offset in
            let date = first.adding(days: offset)
            let zone = (100...106).contains(offset) ? "America/New_York" : (200...203).contains(offset) ? "Asia/Tokyo" : "Europe/Berlin"
            guard offset % 97 != 13 else { return (date, String(decoding: DayBody(events: [DayEvent](), timeZone: zone).bytes, as: UTF8.self)) }
            let (start, end) = ZoneCalendar(identifier: zone)!.bounds(of: date)
            var events = [DayEvent]()
            var steps = 0.0, energy = 0.0
            for hour in 8..<20 {
                let count = Double(Int.random(in: 0...900, using: &random)), kcal = Double(Int.random(in: 0...99_999, using: &random)) / 1000
                steps += count
                energy += kcal
                events.append(try DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: start + Int64(hour) * 3600,
                                           end: start + Int64(hour + 1) * 3600, value: count))
                events.append(try DayEvent(kind: .total, metric: "activeEnergy", bucket: .hour, unit: "kcal", start: start + Int64(hour) * 3600,
                                           end: start + Int64(hour + 1) * 3600, value: kcal))
            }
            events.append(try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: start, end: end, value: steps))
            events.append(try DayEvent(kind: .total, metric: "activeEnergy", bucket: .day, unit: "kcal", start: start, end: end, value: energy))
            if offset % 3 != 0 {
                events.append(try DayEvent(kind: .total, metric: "futureTotal", bucket: .day, unit: "zz", start: start, end: end,
                                           value: Double(Int.random(in: 0...9999, using: &random)) / 100))
            }
            for _ in 0..<Int.random(in: 20...60, using: &random) {
                let at = start + Int64.random(in: 0..<(end - start), using: &random)
                events.append(try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: Bool.random(using: &random) ? "Watch" : "Phone",
                                           start: at, end: at, value: Double(Int.random(in: 48...170, using: &random))))
            }
            if offset == 150 || offset == 300 {
                events.append(try DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch", start: start - 1800, end: start - 1800, value: 77))
            }
            if offset % 3 == 1 {
                events.append(try DayEvent(kind: .record, metric: "bodyMass", unit: "kg", source: "Scale", start: start + 7 * 3600, end: start + 7 * 3600,
                                           value: 70 + Double(Int.random(in: 0...500, using: &random)) / 100))
            }
            for index in 0..<Int.random(in: 0...4, using: &random) {
                let at = start + Int64(index + 1) * 4000
                events.append(try DayEvent(kind: .record, metric: "oxygenSaturation", unit: index == 0 ? nil : "%", source: "Watch", start: at, end: at + 30,
                                           value: Double(Int.random(in: 90...100, using: &random)) / 100))
            }
            // On some days more distinct values than the index counts: their distributions come from the days.
            for index in 0..<(offset % 10 == 5 ? MirrorDigest.ReadingDetail.maximumValues + 20 : 3) {
                let at = start + 3600 + Int64(index) * 10
                events.append(try DayEvent(kind: .record, metric: "walkingSpeed", unit: "m/s", source: "Phone", start: at, end: at + 5,
                                           value: Double(1000 + index * 7 + Int.random(in: 0...6, using: &random)) / 1000))
            }
            events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: start + 23 * 3600, end: start + 30 * 3600, stage: "asleepCore"))
            // Readings of both zeros (bit patterns 0x0 and 0x8000…, equal as numbers) in orders that differ day by day:
            // the index counts them as one value, and the answers must still be the days' to the byte.
            if offset % 2 == 0 {
                let zeros: [Double] = offset % 4 == 0 ? [0.0, -0.0, 1.5, -0.0] : [-0.0, 0.0, -2.5, 0.0]
                for (index, value) in zeros.enumerated() {
                    let at = start + 5 * 3600 + Int64(index) * 60
                    events.append(try DayEvent(kind: .record, metric: "futureReading", unit: "zz", source: "Phone", start: at, end: at, value: value))
                }
            }
            // Sleep of every shape: a nap, time in bed from a second source, a stretch without a stage
            // (the night before), REM overlapping the core sleep, and a stretch of no length.
            if offset % 5 == 0 {
                events.append(try DayEvent(kind: .record, metric: "sleep", source: "Phone", start: start + 14 * 3600, end: start + 14 * 3600 + 2400, stage: "asleepCore"))
            }
            if offset % 7 == 0 {
                events.append(try DayEvent(kind: .record, metric: "sleep", source: "Phone", start: start + 22 * 3600 + 1800, end: start + 31 * 3600, stage: "inBed"))
            }
            if offset % 11 == 0 {
                events.append(try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: start + 2 * 3600, end: start + 3 * 3600))
            }
            if offset % 13 == 0 {
                events.append(try DayEvent(kind: .record, metric: "sleep", source: "Phone", start: start + 23 * 3600 + 1800, end: start + 25 * 3600, stage: "asleepREM"))
                events.append(try DayEvent(kind: .record, metric: "sleep", source: "Phone", start: start + 26 * 3600, end: start + 26 * 3600, stage: "awake"))
            }
            if offset % 4 == 0 {
                events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: start + 18 * 3600, end: start + 19 * 3600,
                                           activity: "37", duration: 3600))
                events.append(try DayEvent(kind: .record, metric: "workout.distanceWalkingRunning.sum", unit: "m", source: "Watch",
                                           start: start + 18 * 3600, end: start + 19 * 3600, value: 8000 + Double(offset) / 7))
                events.append(try DayEvent(kind: .record, metric: "workout.heartRate.average", unit: "count/min", source: "Watch",
                                           start: start + 18 * 3600, end: start + 19 * 3600, value: 141.25))
                for second in stride(from: start + 18 * 3600, to: start + 19 * 3600, by: 60) {
                    for ordinal in 0..<(second % 7 == 0 ? 2 : 1) {
                        events.append(try DayEvent(kind: .record, metric: "workoutRoute.latitude", unit: "deg", source: "Watch", start: second,
                                                   end: second + Int64(ordinal), value: 48.85 + Double(second % 1000) / 100_000))
                    }
                }
            }
            // A late run from 23:30 to 00:30: the workout on its day, the fixes after midnight filed under the next.
            if offset % 8 == 2 {
                events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: end - 1800, end: end + 1800, activity: "37", duration: 3600))
            }
            if offset % 8 == 3 {
                for second in stride(from: start - 1800, to: start + 1800, by: 30) {
                    events.append(try DayEvent(kind: .record, metric: "workoutRoute.latitude", unit: "deg", source: "Watch", start: second, end: second, value: 48.9))
                }
            }
            return (date, String(decoding: DayBody(events: events, timeZone: zone).bytes, as: UTF8.self))
        }
    }

    /// What the days answer (each answer's own constructor, reading events) and what the request
    /// answers (from the index where it can), side by side: the same JSON or the same refusal.
    static func both(_ request: AnswerRequest, _ range: DayRange?, _ source: MirrorSource) throws -> (days: String, asked: String) {
        func text(_ body: () throws -> any Answer) -> String {
            do { return String(decoding: try body().json.canonicalBytes(), as: UTF8.self) } catch { return "refused: \(error)" }
        }
        let days = text {
            let given = range ?? (try? DayRange(since: first, until: first.adding(days: 365)))!
            switch request.kind {
            case .overview: return try OverviewAnswer(from: source, range: range)
            case .daily: return try DailyAnswer(from: source, metrics: request.metrics.isEmpty ? ["steps", "activeEnergy"] : request.metrics, range: given)
            case .statistics: return try StatisticsAnswer(from: source, metric: request.metric!, range: given, groupBy: try Grouping(name: request.groupBy ?? "month"))
            case .samples: return try SamplesAnswer(from: source, metric: request.metric!, range: given, limit: request.limit ?? 500, offset: request.offset)
            case .workouts: return try WorkoutsAnswer(from: source, range: given, activity: request.activity, offset: request.offset)
            case .sleep: return try SleepAnswer(from: source, range: given)
            }
        }
        return (days, text { try request.answer(from: source, range: range, archive: nil) })
    }

    @Test func theIndexAnswersAsTheDaysDoForAYearOfEveryKind() async throws {
        let harness = try await ReaderHarness()
        try await harness.upload(try Self.year())
        let mirror = try harness.mirror()
        _ = try await harness.syncer(mirror).run()
        let source = MirrorSource(mirror: mirror)
        let ranges: [DayRange?] = [nil, try DayRange(since: Self.first, until: Self.day("2024-12-31")), try DayRange(since: Self.day("2024-03-01"), until: Self.day("2024-05-31")),
                                   try DayRange(since: Self.day("2024-05-29"), until: Self.day("2024-05-31")), try DayRange(since: Self.day("2024-06-01"), until: Self.day("2024-09-30")),
                                   try DayRange(since: Self.day("2023-12-01"), until: Self.day("2024-01-03")), try DayRange(since: Self.day("2024-04-10"), until: Self.day("2024-04-10")),
                                   DayRange.nothing(from: Self.day("2024-02-01"))]
        var requests = [AnswerRequest(kind: .overview)]
        for metrics in [[], ["heartRate", "steps", "bodyMass", "futureTotal", "oxygenSaturation", "workout.distanceWalkingRunning.sum", "futureReading"], ["noSuchMetric"]] {
            requests.append(AnswerRequest(kind: .daily, metrics: metrics))
        }
        for metric in ["steps", "activeEnergy", "futureTotal", "heartRate", "bodyMass", "oxygenSaturation", "walkingSpeed", "futureReading", "noSuchMetric"] {
            for grouping in Grouping.allCases { requests.append(AnswerRequest(kind: .statistics, metric: metric, groupBy: grouping.rawValue)) }
        }
        for metric in ["heartRate", "bodyMass", "sleep", "steps", "workout", "noSuchMetric"] {
            for (limit, offset) in [(1, 0), (7, 3), (500, 0), (500, 600)] {
                var request = AnswerRequest(kind: .samples, metric: metric, limit: limit)
                request.offset = offset
                requests.append(request)
            }
        }
        for (activity, offset) in [(nil, 0), (nil, 5), ("running", 0), ("walking", 0), ("activity-12", 0), ("no-such", 0)] {
            var request = AnswerRequest(kind: .workouts, activity: activity)
            request.offset = offset
            requests.append(request)
        }
        requests.append(AnswerRequest(kind: .sleep))
        var compared = 0, refused = 0, empty = 0
        for request in requests {
            for range in ranges where range != nil || request.kind == .overview {
                let (days, asked) = try Self.both(request, range, source)
                if days.hasPrefix("refused") { refused += 1 }
                if days.contains("\"rows\":[]") || days.contains("\"matched\":0") { empty += 1 }
                #expect(days == asked, "\(request.kind) \(request.metric ?? request.metrics.joined(separator: ",")) \(request.groupBy ?? "") \(String(describing: range))")
                compared += 1
            }
        }
        #expect(compared > 300)
        // Only an unknown name is refused (daily, four groupings and an activity over seven ranges), and the
        // total and the reading the catalogue does not know over the empty range (daily and four groupings; four groupings).
        #expect(refused == 6 * 7 + 5 + 4, "\(refused)")
        #expect(empty < compared / 3, "\(empty) of \(compared) answers are empty")

        // Where no local day is fed by two archive days, the index gives these answers itself.
        let summer = try DayRange(since: Self.day("2024-06-01"), until: Self.day("2024-09-30"))
        let index = try mirror.indexSnapshot()
        for request in [AnswerRequest(kind: .statistics, metric: "heartRate", groupBy: "month"), AnswerRequest(kind: .daily, metrics: ["heartRate", "steps"]),
                        AnswerRequest(kind: .samples, metric: "heartRate", limit: 500), AnswerRequest(kind: .overview), AnswerRequest(kind: .workouts),
                        AnswerRequest(kind: .sleep)] {
            #expect(try IndexedAnswers.answer(request, index: index, held: mirror.days, range: summer, archive: nil, source: source) != nil, "\(request.kind)")
        }
        // Days with more distinct values than the index counts are left to the days.
        #expect(try IndexedAnswers.answer(AnswerRequest(kind: .statistics, metric: "walkingSpeed"), index: index, held: mirror.days, range: summer,
                                          archive: nil, source: source) == nil)
        // A day fed by two archive days is left to the days, whose sum comes in one run.
        let spring = try DayRange(since: Self.day("2024-05-29"), until: Self.day("2024-05-31"))
        #expect(try IndexedAnswers.answer(AnswerRequest(kind: .daily, metrics: ["heartRate"]), index: index, held: mirror.days, range: spring,
                                          archive: nil, source: source) == nil)
    }

    /// Workouts of several pages across several windows of days: the index fills in the
    /// statistics and route fixes of a page's workouts only, so every page, the counts, `next`
    /// and the full table (CSV) must still be the days' to the byte — with statistics of two
    /// sources at one start, statistics and fixes filed under the next day, workouts that tie on
    /// start and end, a zone that changes, and a range whose edges cut windows.
    @Test func everyPageOfWorkoutsIsTheDaysPageToTheByte() async throws {
        var random = SplitMix64(seed: 2930)
        let days = try (0..<230).map { offset -> (CalendarDay, String) in
            let date = Self.first.adding(days: offset)
            let zone = (60...75).contains(offset) ? "America/New_York" : "Europe/Berlin"
            let (start, end) = ZoneCalendar(identifier: zone)!.bounds(of: date)
            var events = [DayEvent]()
            for index in 0..<(offset % 9 == 4 ? 0 : 6) {
                let at = start + 6 * 3600 + Int64(index) * 2400
                let activity = ["37", "52", "13", "99"][Int.random(in: 0...3, using: &random)]
                let source = index % 3 == 2 ? "Phone" : "Watch"
                events.append(try DayEvent(kind: .record, metric: "workout", source: source, start: at, end: at + 1800, activity: activity,
                                           duration: index == 1 ? nil : 1700 + Double(Int.random(in: 0...200, using: &random))))
                if index == 4 {
                    // The same start and end as the one before, another activity: listed by activity.
                    events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: at - 2400, end: at - 600, activity: "13", duration: 1800))
                }
                for (metric, unit) in [("workout.distanceWalkingRunning.sum", "m"), ("workout.distanceCycling.sum", "m"), ("workout.activeEnergy.sum", "kcal"),
                                       ("workout.heartRate.average", "count/min"), ("workout.heartRate.maximum", "count/min")]
                where Int.random(in: 0...3, using: &random) > 0 {
                    events.append(try DayEvent(kind: .record, metric: metric, unit: unit, source: source, start: at, end: at + 1800,
                                               value: Double(Int.random(in: 1...900_000, using: &random)) / 1000))
                    // Another source's statistic at the same start: not this workout's.
                    if index == 0 {
                        events.append(try DayEvent(kind: .record, metric: metric, unit: unit, source: "Other", start: at, end: at + 1800, value: 1))
                    }
                }
                for second in stride(from: at, to: at + 1800, by: Int.random(in: 60...400, using: &random)) {
                    events.append(try DayEvent(kind: .record, metric: "workoutRoute.latitude", unit: "deg", source: "Watch", start: second, end: second, value: 48.85))
                }
            }
            // A late workout whose statistic and fixes are filed under the next day.
            if offset % 10 == 3 {
                events.append(try DayEvent(kind: .record, metric: "workout", source: "Watch", start: end - 600, end: end + 1200, activity: "37", duration: 1800))
            }
            if offset % 10 == 4 {
                let late = start - 600
                events.append(try DayEvent(kind: .record, metric: "workout.activeEnergy.sum", unit: "kcal", source: "Watch", start: late, end: late + 1800, value: 55.5))
                for second in stride(from: start, to: start + 1200, by: 120) {
                    events.append(try DayEvent(kind: .record, metric: "workoutRoute.latitude", unit: "deg", source: "Watch", start: second, end: second, value: 48.9))
                }
            }
            return (date, String(decoding: DayBody(events: events, timeZone: zone).bytes, as: UTF8.self))
        }
        let harness = try await ReaderHarness()
        try await harness.upload(days)
        let mirror = try harness.mirror()
        _ = try await harness.syncer(mirror).run()
        let source = MirrorSource(mirror: mirror)
        let index = try mirror.indexSnapshot()
        let ranges = [try DayRange(since: Self.first, until: Self.first.adding(days: 229)), try DayRange(since: Self.day("2024-02-10"), until: Self.day("2024-07-20")),
                      try DayRange(since: Self.day("2024-03-01"), until: Self.day("2024-03-01"))]
        var pages = 0
        for range in ranges {
            for activity in [nil, "running", "cycling"] {
                let everyOne = try WorkoutsAnswer(from: source, range: range, activity: activity)
                for offset in [0, 1, 999, 1000, 1001, 1357, everyOne.workouts.count - 1, everyOne.workouts.count, everyOne.workouts.count + 5] where offset >= 0 {
                    let byDays = try WorkoutsAnswer(from: source, range: range, activity: activity, offset: offset)
                    let byIndex = try IndexedAnswers.workouts(index: index, held: mirror.days, range: range, activity: activity, offset: offset)
                    #expect(try byIndex.json.canonicalBytes() == byDays.json.canonicalBytes(), "\(range) \(activity ?? "any") from \(offset)")
                    // Written straight (the API's and MCP's path), with members added as a surface adds them: the same bytes.
                    let annotate: (inout [String: JSONValue]) -> Void = { $0["note"] = .string("said beside"); $0["nameNotes"] = .array([.string("n")]) }
                    var annotated = try #require(byDays.json.objectValue)
                    annotate(&annotated)
                    #expect(try byIndex.jsonBytes { _ in } == byDays.json.canonicalBytes())
                    #expect(try byIndex.jsonBytes(annotating: annotate) == JSONValue.object(annotated).canonicalBytes())
                    var request = AnswerRequest(kind: .workouts, since: range.since, until: range.until, activity: activity)
                    request.offset = offset
                    let (fromDays, asked) = try Self.both(request, range, source)
                    #expect(fromDays == asked)
                    if byDays.json["next"] != nil { pages += 1 }
                }
                let byIndex = try IndexedAnswers.workouts(index: index, held: mirror.days, range: range, activity: activity, offset: 0)
                #expect(byIndex.workouts == everyOne.workouts)
                #expect(try byIndex.rendered(as: .csv) == everyOne.rendered(as: .csv))
                #expect(try byIndex.rendered(as: .table) == everyOne.rendered(as: .table))
            }
        }
        // The decade-long listing holds more than a page, with statistics, fixes and the late ones among them.
        let all = try WorkoutsAnswer(from: source, range: ranges[0])
        #expect(all.workouts.count > 1200 && pages >= 4, "\(all.workouts.count) workouts, \(pages) answers with a next page")
        #expect(all.workouts.filter { $0.routeFixes != nil && $0.distanceMeters != nil && $0.averageHeartRate != nil }.count > 300)
        #expect(all.workouts.contains { $0.activeEnergyKcal == 55.5 })
    }

    @Test func theIndexFollowsSyncAndIsReadAgainWhenADayDiffers() async throws {
        let harness = try await ReaderHarness()
        let days = (0..<40).map { Self.first.adding(days: $0) }
        try await harness.upload(days.map { ($0, ReaderHarness.handBody($0, steps: 100)) })
        _ = try await harness.syncer(try harness.mirror()).run()
        let indexFile = harness.profile.path(MirrorIndex.fileName)
        #expect(FileManager.default.fileExists(atPath: indexFile), "sync saves the index with the record")
        let saved = try #require(MirrorIndex.decodedEntries(at: indexFile))
        #expect(saved.count == 40 && saved[days[3]]?.digest.metrics["steps"]?.dayTotal == 100)

        // What the sync saved is what the days say (the index is read back, not rebuilt).
        let mirror = try harness.mirror()
        let fromDays = Dictionary(uniqueKeysWithValues: try days.map { day in
            (day, try MirrorDigest.digest(try #require(try mirror.body(day)), day: day, stamp: mirror.uploaded(day)!))
        })
        #expect(try mirror.indexSnapshot().days == fromDays)
        #expect(saved.mapValues(\.digest) == fromDays, "the file round-trips every field")

        // A changed day comes with the next sync, in step.
        try await harness.upload([(days[5], ReaderHarness.handBody(days[5], steps: 555))])
        // (In a process that has answered already, as a dashboard's background sync: its days are held
        // decoded, and saved by encoding them again.)
        let later = try harness.mirror()
        #expect(try later.indexSnapshot().days.count == 40)
        _ = try await harness.syncer(later).run()
        #expect(try later.indexSnapshot().days[days[5]]?.metrics["steps"]?.dayTotal == 555)
        let reread = try #require(MirrorIndex.decodedEntries(at: indexFile))
        #expect(reread[days[5]]?.digest.metrics["steps"]?.dayTotal == 555, "and is on disk when the sync ends")
        #expect(reread.mapValues(\.digest) == (try later.indexSnapshot().days), "every day, encoded again from the days held decoded")

        // A day file written again with the same body (a copy, a restore): its stamp differs, so it is read again, and checks.
        let replaced = try harness.mirror()
        let original = try harness.profile.read(replaced.file(days[7]))
        try harness.profile.write(replaced.file(days[7]), original, durable: false)
        #expect(try replaced.indexSnapshot().days[days[7]]?.metrics["steps"]?.dayTotal == 100)
        #expect(try replaced.damagedDays().isEmpty)

        // Replaced by another body behind the record's back (same upload time): not what was fetched, so
        // it is left out rather than believed, named, and fetched again by the next sync.
        try harness.profile.write(replaced.file(days[7]), Array(ReaderHarness.handBody(days[7], steps: 777).utf8), durable: false)
        let other = try harness.mirror()
        #expect(try other.indexSnapshot().days[days[7]] == nil)
        #expect(try other.damagedDays() == [days[7]: .changed])
        let daily = try AnswerRequest(kind: .daily, metrics: ["steps"]).answer(from: MirrorSource(mirror: other),
                                                                              range: try DayRange(since: days[7], until: days[7]), archive: nil)
        #expect((daily as? DailyAnswer)?.values != [[777]])
        let resynced = try await harness.syncer(other).run()
        #expect(resynced.fetched == 1)
        #expect(try other.indexSnapshot().days[days[7]]?.metrics["steps"]?.dayTotal == 100)
        #expect(try other.damagedDays().isEmpty)

        // An index that does not read is rebuilt from the days.
        try Data("not an index".utf8).write(to: URL(fileURLWithPath: indexFile))
        let rebuilt = try harness.mirror()
        #expect(try rebuilt.indexSnapshot().days.count == 40)
        #expect(MirrorIndex.decodedEntries(at: indexFile)?.count == 40)

        // Forgetting days forgets their entries.
        _ = try await harness.syncer(try harness.mirror(), transport: SyncTests.EmptyListing(endpoint: harness.endpoint)).run(acceptRemovals: true)
        #expect(MirrorIndex.decodedEntries(at: indexFile)?.isEmpty == true)
        #expect(try harness.mirror().indexSnapshot().days.isEmpty)
    }

    /// A process that has checked every day file once checks again only when its record changed or
    /// `mirror.json` or the `days` folder did: a day rewritten in place (not renamed into the folder)
    /// is seen by the next process, and by this one once the folder changes; a day renamed into the
    /// folder (how sync and editors replace files) is seen at once.
    @Test func aCheckedIndexIsCheckedAgainWhenTheRecordOrTheFolderChanges() async throws {
        let harness = try await ReaderHarness()
        let days = (0..<5).map { Self.first.adding(days: $0) }
        try await harness.upload(days.map { ($0, ReaderHarness.handBody($0, steps: 100)) })
        let mirror = try harness.mirror()
        _ = try await harness.syncer(mirror).run()
        // Stamps well in the past, so the check after this one can trust them (file times move in ticks).
        let past = Date(timeIntervalSince1970: 1_600_000_000)
        let folder = harness.profile.path(Mirror.directoryName), record = harness.profile.path(Mirror.fileName)
        for path in [folder, record] { try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: path) }
        #expect(try mirror.indexSnapshot().days[days[1]]?.metrics["steps"]?.dayTotal == 100)

        // Rewritten in place: the folder keeps its stamp, so this process keeps its answer; a new process reads the day.
        let handle = try #require(FileHandle(forWritingAtPath: harness.profile.path(mirror.file(days[1]))))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(ReaderHarness.handBody(days[1], steps: 222).utf8))
        try handle.close()
        #expect(try mirror.indexSnapshot().days[days[1]]?.metrics["steps"]?.dayTotal == 100)
        // (A body other than the one fetched: not believed, and named as changed.)
        let next = try harness.mirror()
        #expect(try next.indexSnapshot().days[days[1]] == nil && next.damagedDays() == [days[1]: .changed])
        // Once the folder changes, this process reads it too.
        try FileManager.default.setAttributes([.modificationDate: past.addingTimeInterval(60)], ofItemAtPath: folder)
        #expect(try mirror.indexSnapshot().days[days[1]] == nil)
        // So it does when mirror.json changes.
        let again = try #require(FileHandle(forWritingAtPath: harness.profile.path(mirror.file(days[2]))))
        try again.truncate(atOffset: 0)
        try again.write(contentsOf: Data(ReaderHarness.handBody(days[2], steps: 333).utf8))
        try again.close()
        try FileManager.default.setAttributes([.modificationDate: past.addingTimeInterval(60)], ofItemAtPath: folder)
        try FileManager.default.setAttributes([.modificationDate: past.addingTimeInterval(120)], ofItemAtPath: record)
        #expect(try mirror.indexSnapshot().days[days[2]] == nil)

        // Replaced by a rename into the folder: seen at once.
        try harness.profile.write(mirror.file(days[3]), Array(ReaderHarness.handBody(days[3], steps: 444).utf8), durable: false)
        #expect(try mirror.indexSnapshot().days[days[3]] == nil)
        // A day file deleted: its entry goes with it.
        try FileManager.default.removeItem(atPath: harness.profile.path(mirror.file(days[4])))
        #expect(try mirror.indexSnapshot().days[days[4]] == nil)
        #expect(try mirror.damagedDays() == [days[1]: .changed, days[2]: .changed, days[3]: .changed, days[4]: .missing])
        #expect(try mirror.indexSnapshot().days.keys.sorted() == [days[0]])
    }

    /// An index that does not read is rebuilt from the days, and the person is told once, in a
    /// sentence without a value from the days; so is one of an older format.
    @Test func anIndexThatDoesNotReadIsRebuiltAndSaidOnce() async throws {
        let harness = try await ReaderHarness()
        let days = (0..<3).map { Self.first.adding(days: $0) }
        try await harness.upload(days.map { ($0, ReaderHarness.handBody($0, steps: 4321)) })
        _ = try await harness.syncer(try harness.mirror()).run()
        let indexFile = harness.profile.path(MirrorIndex.fileName)
        #expect(try harness.mirror().takeIndexNotice() == nil)

        try Data("not an index".utf8).write(to: URL(fileURLWithPath: indexFile))
        let broken = try harness.mirror()
        let daily = try AnswerRequest(kind: .daily, metrics: ["steps"]).answer(from: MirrorSource(mirror: broken),
                                                                              range: try DayRange(since: days[0], until: days[2]), archive: nil)
        #expect((daily as? DailyAnswer)?.values == [[4321], [4321], [4321]])
        let notice = try #require(broken.takeIndexNotice())
        #expect(notice.contains(indexFile) && notice.contains("rebuilt") && !notice.contains("4321"), "\(notice)")
        #expect(broken.takeIndexNotice() == nil, "said once")
        #expect(try harness.mirror().indexSnapshot().days.count == 3)
        #expect(try harness.mirror().takeIndexNotice() == nil, "the rebuilt index reads")

        // A day whose digest in the index does not match its checksum is read again from its file, and said.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: indexFile)))
        bytes[IndexFile.headerSize + 3] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: indexFile))
        let partly = try harness.mirror()
        #expect(try partly.indexSnapshot().days[days[0]]?.metrics["steps"]?.dayTotal == 4321)
        #expect(try #require(partly.takeIndexNotice()).contains("checksum"))
        #expect(MirrorIndex.decodedEntries(at: indexFile)?.count == 3, "and saved again")

        // An index of an earlier format: rebuilt once, and said.
        try Data("EFX6 an index of before".utf8).write(to: URL(fileURLWithPath: indexFile))
        let older = try harness.mirror()
        #expect(try older.indexSnapshot().days.count == 3)
        #expect(try #require(older.takeIndexNotice()).contains("another format (EFX6"))
        #expect(try harness.mirror().takeIndexNotice() == nil)
    }

    /// Issue 45: words the writer kept as the phone sent them, because it did not know them — a
    /// workout's activity (and its activity's), a State of Mind label, an ECG classification —
    /// are named by `overview` with their counts, from the days and from the index alike.
    @Test func theOverviewNamesWordsNotYetKnown() async throws {
        let harness = try await ReaderHarness()
        let days = (0..<3).map { Self.first.adding(days: $0) }
        let bodies = try days.enumerated().map { offset, day -> (CalendarDay, String) in
            let (start, _) = ZoneCalendar(identifier: "Europe/Berlin")!.bounds(of: day)
            var events = [try DayEvent(kind: .record, metric: "workout", source: "Watch", start: start + 3600, end: start + 7200,
                                       activity: offset == 1 ? "50" : "zumba_fusion", duration: 3600),
                          try DayEvent(kind: .record, metric: "workout.activity", source: "Watch", start: start + 3600, end: start + 7200,
                                       activity: offset == 1 ? "50" : "zumba_fusion", duration: 3600),
                          try DayEvent(kind: .record, metric: "stateOfMind.label", source: "iPhone", start: start + 60, end: start + 60, value: 17),
                          try DayEvent(kind: .record, metric: "sleep", source: "Watch", start: start, end: start + 60, stage: "asleepCore")]
            if offset == 2 {
                events.append(try DayEvent(kind: .record, metric: "stateOfMind.label", source: "iPhone", start: start + 60, end: start + 60, stage: "nostalgic"))
                events.append(try DayEvent(kind: .record, metric: "electrocardiogram", source: "Watch", start: start + 90, end: start + 120,
                                           stage: "classification_9x"))
            }
            return (day, String(decoding: DayBody(events: events, timeZone: "Europe/Berlin").bytes, as: UTF8.self))
        }
        try await harness.upload(bodies)
        let mirror = try harness.mirror()
        _ = try await harness.syncer(mirror).run()
        let source = MirrorSource(mirror: mirror)
        let (fromDays, fromIndex) = try Self.both(AnswerRequest(kind: .overview), nil, source)
        #expect(fromDays == fromIndex)
        let answer = try OverviewAnswer(from: source)
        let words = Dictionary(uniqueKeysWithValues: answer.metrics.map { ($0.metric, $0.wordsNotYetKnown) })
        #expect(words["workout"] == ["zumba_fusion": 2] && words["workout.activity"] == ["zumba_fusion": 2])
        #expect(words["stateOfMind.label"] == ["nostalgic": 1] && words["electrocardiogram"] == ["classification_9x": 1])
        #expect(words["sleep"] == [:], "sleep's stages are its own words")
        #expect(fromIndex.contains("\"notYetKnown\":{\"zumba_fusion\":2}"), "\(fromIndex)")
        #expect(answer.table.rows.first { $0.first == .string("workout") }?.last == .string("zumba_fusion ×2"))
    }
}
