/// What a correct importer must produce from a generated export — written as JSON beside it.
///
/// Days are local days in `timeZone` (Europe/Paris); every cumulative sample lies between 00:30
/// and 22:30 local, so the export's uniform offset (§1.4) files each on the same day. Daily totals
/// follow `CoverageDeduplicator`'s semantics. Record counts are of top-level records (correlation
/// children are the same records again and are not counted twice).
public struct ExportTruths: Sendable, Equatable, Codable {
    /// One night, filed on the local day its sleeper woke.
    public struct SleepNight: Sendable, Equatable, Codable {
        public var wakeDate: LocalDate
        /// The iPhone's `InBed` record, in seconds (0 when it wrote none).
        public var inBedSeconds: Int
        /// Core + deep + REM + unspecified (legacy `Asleep` counts as unspecified), from the Watch.
        public var asleepSeconds: Int
        public var awakeSeconds: Int
        public var coreSeconds: Int
        public var deepSeconds: Int
        public var remSeconds: Int
        public var unspecifiedSeconds: Int
    }

    public struct Workout: Sendable, Equatable, Codable {
        /// `HKWorkoutActivityType…`
        public var activityType: String
        /// Seconds since 1970, UTC.
        public var start: Int64
        public var durationSeconds: Int
        public var source: String
        public var energyKcal: Double
        public var distanceMeters: Double?
        /// The GPX file's path under `apple_health_export/` (as `FileReference@path` has it, minus
        /// the leading `/`), when the workout has a route.
        public var routeFile: String?
        /// The fixes its route holds.
        public var routeFixes: Int?
        /// `WorkoutStatistics` of heart rate, written from iOS 16's era on.
        public var averageHeartRate: Double?
        public var swimmingStrokes: Int?
    }

    public struct ActivitySummary: Sendable, Equatable, Codable {
        public var date: LocalDate
        public var activeEnergyKcal: Double
        public var exerciseMinutes: Int
        public var standHours: Int
    }

    public var seed: UInt64
    public var years: Int
    public var timeZone: String
    /// The offset on every date in the file, e.g. `+0200`.
    public var exportOffset: String
    public var firstDate: LocalDate
    public var lastDate: LocalDate
    /// Days with at least one total, in order.
    public var days: [DailyTotals]
    /// Top-level records per metric name (see `RecordStream.countedMetric`).
    public var recordCounts: [String: Int]
    /// Top-level records per HealthKit type identifier, as the export writes them.
    public var typeCounts: [String: Int]
    /// Everything else the export holds, per element it comes from (see `WorkoutElements.counts`):
    /// `WorkoutRoute trkpt`, `InstantaneousBeatsPerMinute`, `ActivitySummary <attribute>`,
    /// `Electrocardiogram`, `Electrocardiogram voltage`, workout statistics, events, metadata.
    public var partCounts: [String: Int]
    public var totalRecords: Int
    public var sleepNights: [SleepNight]
    public var workouts: [Workout]
    public var activitySummaries: [ActivitySummary]
    /// For steps and distance: the iPhone samples wholly covered by the Watch, partly covered
    /// (prorated) and not covered at all.
    public var overlapTallies: [String: OverlapTally]
    /// Walks whose first iPhone sample is exactly half covered: each adds one partly covered
    /// sample to the steps and distance tallies.
    public var plannedPartialOverlaps: Int
    /// Dates of records deliberately written in the future (the 2030 quirk).
    public var futureDatedRecordDates: [LocalDate]
    /// Name of the main XML inside the zip (localized with the quirk).
    public var mainXMLPath: String

    public var workoutCount: Int { workouts.count }

    /// The totals of `date`, if it has any.
    public func totals(on date: LocalDate) -> DailyTotals? {
        days.first { $0.date == date }
    }
}
