/// One sample as an export holds it, before mapping to a protocol metric: what every reader of
/// outside formats (Apple Health XML, NDJSON) produces and the source store keeps.
///
/// Instants are Unix seconds (Apple's exports have whole seconds; other formats may carry
/// fractions, which the day body floors). Nothing here is converted yet: `unit` is the export's
/// own unit string and `value` the number written beside it.
public struct SourceRecord: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// `HKQuantityTypeIdentifier…`: a number with a unit.
        case quantity
        /// `HKCategoryTypeIdentifier…`: an enum string (sleep stages) or nothing.
        case category
        /// `Workout`: an activity type and a duration.
        case workout
        /// A part of a sample that is no HealthKit type of its own (a workout's statistic, a route
        /// fix's coordinate, an ECG voltage, an activity ring): `type` is already its protocol
        /// metric (`workout.heartRate.average`, `workoutRoute.latitude`, decision A.9) and `value`
        /// is in `unit` as the source wrote it.
        case part
    }

    public var kind: Kind
    /// The HealthKit identifier (`HKQuantityTypeIdentifierStepCount`, `HKCategoryTypeIdentifierSleepAnalysis`,
    /// `HKWorkoutTypeIdentifier`) — English in every locale.
    public var type: String
    /// `sourceName`: personal, localized, opaque UTF-8 (`Simon’s iPhone`).
    public var source: String
    /// The device's model as parsed from the `HKDevice` description (`Watch`, `iPhone`), when known.
    public var deviceModel: String?
    public var start: Double
    public var end: Double
    /// Quantities and parts: the number as written. Workouts: nil.
    public var value: Double?
    /// Quantities: the export's unit string (`kJ`, `mi`, `count/min`). Workouts: nil.
    public var unit: String?
    /// Categories: the value string (`HKCategoryValueSleepAnalysisAsleepCore`), or nil.
    public var category: String?
    /// Workouts (and a workout's activities): `HKWorkoutActivityTypeRunning` (XML), the raw number
    /// as text, or the name a format gives it (`strength_training`), exactly as written.
    public var activity: String?
    /// `HKWorkoutActivityType`'s raw value as text (`50`) for `activity`, when the reader of a
    /// format that names activities in words of its own (Puls Sync's `strength_training`) knew the
    /// name; nil otherwise. The mapping takes it before `activity`, which stays as written for the
    /// record's identity (decision A.6).
    public var resolvedActivity: String?
    /// Workouts: duration in seconds.
    public var duration: Double?
    /// The `HKTimeZone` metadata, when the record carries one.
    public var timeZone: String?

    public init(kind: Kind, type: String, source: String, deviceModel: String? = nil, start: Double, end: Double,
                value: Double? = nil, unit: String? = nil, category: String? = nil, activity: String? = nil,
                resolvedActivity: String? = nil, duration: Double? = nil, timeZone: String? = nil) {
        self.kind = kind
        self.type = type
        self.source = source
        self.deviceModel = deviceModel
        self.start = start
        self.end = end
        self.value = value
        self.unit = unit
        self.category = category
        self.activity = activity
        self.resolvedActivity = resolvedActivity
        self.duration = duration
        self.timeZone = timeZone
    }
}

/// Apple's own daily figures for Watch users (`ActivitySummary`), kept to check our totals against.
public struct ActivitySummaryRecord: Sendable, Equatable {
    /// A local calendar date as the export writes it (`dateComponents`).
    public var day: String
    /// Active energy in kilocalories (converted from the element's own unit).
    public var activeEnergyKilocalories: Double?
    public var exerciseMinutes: Double?
    public var standHours: Double?
    /// Every ring figure and goal the element holds, by attribute name (`appleMoveTimeGoal`), in
    /// the unit of its `activitySummary.<name>` metric (decision A.9).
    public var rings: [String: Double]

    public init(day: String, activeEnergyKilocalories: Double?, exerciseMinutes: Double?, standHours: Double?,
                rings: [String: Double] = [:]) {
        self.day = day
        self.activeEnergyKilocalories = activeEnergyKilocalories
        self.exerciseMinutes = exerciseMinutes
        self.standHours = standHours
        self.rings = rings
    }
}

/// Where parsed export content goes: the importer streams into it, so nothing holds a whole export.
public protocol ExportSink: AnyObject {
    func record(_ record: SourceRecord) throws
    func activitySummary(_ summary: ActivitySummaryRecord) throws
    /// A workout route, counted (the default implementation, in `WorkoutRoute.swift`, ignores it);
    /// its fixes arrive as `workoutRoute.*` records.
    func workoutRoute(_ route: WorkoutRoute) throws
    /// Something the input holds that the archive leaves out on purpose or cannot read (decision
    /// A.9), so the import can name it with its count; the default implementation ignores it.
    func leftOut(_ what: LeftOut) throws
}
