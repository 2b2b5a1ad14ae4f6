import EfferentClient
import EfferentCore
@_spi(Fuzzing) import EfferentReader
import Foundation

extension FuzzEntry {
    /// The reader's index, `index.bin` (issue 45), over a small mirror with totals, readings, a
    /// workout with its statistics and route, and sleep. The first byte picks what the rest is:
    ///
    /// - 0: the whole file. Every answer equals a fresh reader's, byte for byte, and anything but
    ///   the clean file is named (whatever does not check is rebuilt from the days).
    /// - 1: one section (the next byte picks strings, days or tallies), 2: one day's digest (the
    ///   next byte picks the day), each with every checksum made to match: bytes that were never an
    ///   index, beneath a file that checks. Every answer is given or refused; none traps.
    /// - 3: the bytes handed to every parser of the format directly (`IndexFileFuzzing.parse`).
    ///
    /// No input may trap, hang, or allocate more than the bytes could hold (libFuzzer's
    /// `-rss_limit_mb` and `-malloc_limit_mb` stop a target that does).
    public static func index(_ bytes: [UInt8]) {
        guard let mode = bytes.first else { return }
        let fixture = IndexFuzzMirror.shared
        let rest = Array(bytes.dropFirst())
        switch mode % 4 {
        case 0:
            let answers = fixture.answers(withIndex: rest)
            guard answers.json == fixture.reference else { fatalError("an answer from a damaged index differs from a fresh reader's") }
            if rest != fixture.clean, answers.notice == nil { fatalError("a damaged index was rebuilt without a word") }
        case 1:
            guard let which = rest.first, let file = IndexFileFuzzing.resealing(fixture.clean, section: Int(which), with: Array(rest.dropFirst())) else { return }
            _ = fixture.answers(withIndex: file)
        case 2:
            guard let which = rest.first, let file = IndexFileFuzzing.resealing(fixture.clean, day: Int(which), digest: Array(rest.dropFirst())) else { return }
            _ = fixture.answers(withIndex: file)
        default:
            IndexFileFuzzing.parse(rest)
        }
    }
}

/// The index fuzz target's mirror: four days in Berlin with steps and energy totals, heart rate,
/// a run with its distance and route fixes, a night's sleep and a weight, made once per process;
/// its clean `index.bin`; and the answers a fresh reader gives over it.
final class IndexFuzzMirror: Sendable {
    static let shared = IndexFuzzMirror()

    let directory: String
    let endpoint = "http://127.0.0.1:9/fuzz"
    let clean: [UInt8]
    let reference: [String]
    static let first = CalendarDay(year: 2025, month: 5, day: 30)!
    static let today = CalendarDay(year: 2025, month: 6, day: 2)!

    /// What each answer asks: every kind, over the days, with a range for the overview.
    static let requests: [AnswerRequest] = {
        var list = [AnswerRequest(kind: .overview), AnswerRequest(kind: .overview, since: first.next, until: today)]
        list.append(AnswerRequest(kind: .daily, since: first, until: today, metrics: ["steps", "heartRate", "bodyMass"]))
        list.append(AnswerRequest(kind: .statistics, since: first, until: today, metric: "heartRate", groupBy: "day"))
        list.append(AnswerRequest(kind: .statistics, since: first, until: today, metric: "steps", groupBy: "week"))
        list.append(AnswerRequest(kind: .sleep, since: first, until: today))
        list.append(AnswerRequest(kind: .workouts, since: first, until: today))
        list.append(AnswerRequest(kind: .samples, since: first, until: today, metric: "heartRate", limit: 7))
        return list
    }()

    private init() {
        directory = NSTemporaryDirectory() + "efferent-fuzz-index-" + UUID().uuidString
        let days = (0..<4).map { Self.first.adding(days: $0) }.map { day in (day, Self.body(of: day)) }
        do {
            _ = try IndexFileFuzzing.makeMirror(at: directory, endpoint: endpoint, days: days)
            clean = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/index.bin")))
        } catch {
            fatalError("the fuzz mirror could not be made: \(error)")
        }
        reference = Self.answers(directory: directory, endpoint: endpoint, index: clean).json
        guard reference.count == Self.requests.count, !reference.contains(where: { $0.hasPrefix("refused") }) else {
            fatalError("the fuzz mirror does not answer: \(reference)")
        }
    }

    /// `index` as the mirror's `index.bin`, then every answer from a reader opened on it, as JSON
    /// (or "refused: …"), and what the reader said about the index.
    func answers(withIndex index: [UInt8]) -> (json: [String], notice: String?) {
        Self.answers(directory: directory, endpoint: endpoint, index: index)
    }

    private static func answers(directory: String, endpoint: String, index: [UInt8]) -> (json: [String], notice: String?) {
        let path = directory + "/index.bin"
        do {
            try Data(index).write(to: URL(fileURLWithPath: path))
            let mirror = try Mirror(profile: Profile(directory: directory), endpoint: endpoint)
            let source = MirrorSource(mirror: mirror)
            let json = requests.map { request -> String in
                do {
                    let (answer, _) = try request.answer(from: source, today: today, pageDays: AnswerScope.pageDays)
                    return String(decoding: try answer.jsonBytes { _ in }, as: UTF8.self)
                } catch {
                    return "refused: \(error)"
                }
            }
            return (json, mirror.takeIndexNotice())
        } catch {
            fatalError("the fuzz mirror's index could not be written: \(error)")
        }
    }

    static func body(of day: CalendarDay) -> [UInt8] {
        let zone = "Europe/Berlin"
        let midnight = day.startUnixSeconds - 7200
        var events = [DayEvent]()
        func add(_ event: DayEvent?) { if let event { events.append(event) } }
        add(try? DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", start: midnight, end: midnight + 86_400,
                          value: Double(8_000 + day.day * 17)))
        add(try? DayEvent(kind: .total, metric: "steps", bucket: .hour, unit: "count", start: midnight + 3600, end: midnight + 7200, value: 420))
        add(try? DayEvent(kind: .total, metric: "activeEnergy", bucket: .day, unit: "kcal", start: midnight, end: midnight + 86_400, value: 512.25))
        let run = midnight + 7 * 3600
        add(try? DayEvent(kind: .record, metric: "workout", source: "Watch", start: run, end: run + 1800, activity: "37", duration: 1800))
        add(try? DayEvent(kind: .record, metric: "workout.distance.sum", unit: "m", source: "Watch", start: run, end: run + 1800, value: 5_012.5))
        for minute in stride(from: 0, to: 30, by: 3) {
            let at = run + Int64(minute * 60)
            add(try? DayEvent(kind: .record, metric: "heartRate", unit: "count/min", source: "Watch", start: at, end: at, value: 120 + Double(minute % 9)))
            add(try? DayEvent(kind: .record, metric: "workoutRoute.latitude", unit: "deg", source: "Watch", start: at, end: at,
                              value: 52.52 + Double(minute) / 1000))
        }
        add(try? DayEvent(kind: .record, metric: "sleep", source: "Watch", start: midnight - 3 * 3600, end: midnight + 4 * 3600, stage: "asleepCore"))
        add(try? DayEvent(kind: .record, metric: "bodyMass", unit: "kg", source: "Scale", start: midnight + 8 * 3600, end: midnight + 8 * 3600,
                          value: 72.4 + Double(day.day) / 10))
        return DayBody(events: events, timeZone: zone).bytes
    }
}
