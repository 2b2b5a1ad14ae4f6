import EfferentCore

/// What a person shares: a span of days and a set of metrics, summarised per day (or every
/// reading, with `raw`), for the Patient named `name` (none by default: the archive holds no name).
public struct ShareRequest: Sendable, Equatable {
    public var since: CalendarDay?
    /// The last day; nil runs through today (a long-term link keeps running through the day it is re-sealed).
    public var until: CalendarDay?
    /// Metric names as `efferent daily` takes them, and `bloodPressure`, `sleep` and `workouts`;
    /// empty for every one of `defaultMetrics` the archive holds.
    public var metrics: [String]
    public var raw: Bool
    public var name: String?
    public var label: String?

    public init(since: CalendarDay? = nil, until: CalendarDay? = nil, metrics: [String] = [], raw: Bool = false,
                name: String? = nil, label: String? = nil) {
        self.since = since
        self.until = until
        self.metrics = metrics
        self.raw = raw
        self.name = name
        self.label = label
    }

    /// Days a share covers when no `since` is given.
    public static let defaultDays = 90

    /// What a clinician usually asks for: the vital signs, activity and sleep (issue 42's list).
    public static let defaultMetrics = ["heartRate", "restingHeartRate", "heartRateVariability", "bloodPressure", "bodyMass", "bodyMassIndex",
                                        "oxygenSaturation", "respiratoryRate", "bodyTemperature", "bloodGlucose", "vo2Max", "steps",
                                        "sleep", "workouts"]

    public static let bloodPressure = "bloodPressure"
    public static let sleep = "sleep"
    public static let workouts = "workouts"
    public static let bloodPressureParts = ["bloodPressureSystolic", "bloodPressureDiastolic"]
}

/// A share's request read against the archive: the days, and which metrics go in as what.
public struct ShareContent: Sendable, Equatable {
    public let range: DayRange
    /// Metrics summarised per day by `DailyAnswer` (blood pressure's two among them when asked).
    public let daily: [String]
    public let bloodPressure: Bool
    public let sleep: Bool
    public let workouts: Bool
    /// Metrics whose every reading goes in too.
    public let raw: [String]
    /// Sentences for the person sharing: names read otherwise than given, days cut to the archive.
    public let notes: [String]

    /// Reads `request` against `source`: names as every answer reads them (`Steps` → `steps`), an
    /// unknown one refused with the closest, a metric without numbers refused unless it is sleep
    /// or workouts; no metric asked means every default the archive holds.
    public init(_ request: ShareRequest, source: EventSource, today: CalendarDay) throws {
        let resolver = NameResolver(source: source)
        var notes = [String]()
        var daily = [String](), bloodPressure = false, sleep = false, workouts = false
        if request.metrics.isEmpty {
            let held = try resolver.metricsHeld()
            for name in ShareRequest.defaultMetrics {
                switch name {
                case ShareRequest.bloodPressure: bloodPressure = ShareRequest.bloodPressureParts.contains(where: held.contains)
                case ShareRequest.sleep: sleep = held.contains("sleep")
                case ShareRequest.workouts: workouts = held.contains("workout")
                default: if held.contains(name) { daily.append(name) }
                }
            }
        } else {
            for asked in request.metrics {
                switch asked.lowercased() {
                case "bloodpressure": bloodPressure = true
                case "sleep": sleep = true
                case "workouts", "workout": workouts = true
                default:
                    let resolution = try resolver.metric(asked)
                    if let note = resolution.note { notes.append(note) }
                    if ShareRequest.bloodPressureParts.contains(resolution.name) { bloodPressure = true; continue }
                    if MetricCatalogue.withoutValues.contains(resolution.name) { throw AnswerError.noNumbers(metric: resolution.name) }
                    if !daily.contains(resolution.name) { daily.append(resolution.name) }
                }
            }
        }
        if bloodPressure { daily += ShareRequest.bloodPressureParts }
        guard !daily.isEmpty || sleep || workouts else { throw ShareError.nothingToShare }
        let asked = try DayRange(since: request.since, until: request.until, defaultDays: ShareRequest.defaultDays, today: today)
        let scope = try AnswerScope(AnswerRequest(kind: .daily, since: asked.since, until: asked.until, metrics: daily),
                                    today: today, held: try source.days())
        notes += scope.notes
        range = scope.range ?? asked
        self.daily = daily
        self.bloodPressure = bloodPressure
        self.sleep = sleep
        self.workouts = workouts
        raw = request.raw ? daily : []
        self.notes = notes
    }
}

/// Why a share could not be made, in a sentence a person can act on.
public enum ShareError: Error, Equatable, CustomStringConvertible {
    case nothingToShare
    case tooManyFiles(Int)
    case unknownShare(String)
    case ambiguousShare(String, [String])
    case unexpectedAnswer(String)

    public var description: String {
        switch self {
        case .nothingToShare:
            "The archive holds none of the metrics asked for in that span; name some with --metric (efferent overview lists what it holds)."
        case let .tooManyFiles(limit):
            "That share would take more than \(limit) files; share fewer days or metrics, or leave out --raw."
        case let .unknownShare(asked):
            "No link of this archive is \(asked.prefix(60)); efferent share list shows their ids."
        case let .ambiguousShare(asked, matches):
            "\(asked.prefix(60)) starts more than one link's id (\(matches.prefix(3).joined(separator: ", "))); give more of it."
        case let .unexpectedAnswer(kind): "The \(kind) answer came back in a shape this version does not share; this is a bug, please report it."
        }
    }
}
