import EfferentCore

/// One night stitched from the overlapping sleep stretches every source wrote for it.
///
/// The rules (§10.3 leaves most of them to the reader):
/// - A night runs noon to noon in the local zone of its stretches and is named by its evening:
///   a stretch starting before 12:00 local belongs to the night of the day before. A stretch
///   belongs to the night its start falls in, whole (it is not cut at noon).
/// - Per stage, time is the union of that stage's stretches across sources, never their sum.
///   `asleepHours` is the union of the asleep stages (unspecified, core, deep, REM); `awake` and
///   `inBed` do not subtract from it. `inBedHours` is the union of `inBed`, `nil` when no source
///   wrote `inBed`. A stretch without a stage counts as `unknown`.
/// - A night none of whose stretches is an asleep stage (only "in bed", as an iPhone without a
///   Watch records, or awake) has no asleep figure: `asleepHours` is `nil`, not 0 h. It is a
///   night recorded, counted apart (`SleepAnswer.nightsInBedOnly`) and left out of every mean of
///   time asleep, so a night nobody measured never reads as a night without sleep.
/// - Stretches of any stage are joined into clusters wherever the gap between them is at most
///   3 hours. The cluster with the most time asleep is the main sleep (ties: the longer span,
///   then the earlier start); it is never a nap. Any other cluster that lies entirely between
///   10:00 and 18:00 local on one day is a nap: reported in `naps`, left out of the night's
///   hours, stages, start, end and segments. Clusters that are neither stay part of the night.
/// - `segments` is the number of separate pieces the night's stretches make once overlapping
///   and touching ones are merged (a gap with no stretch at all starts a new piece).
public struct SleepNight: Sendable, Equatable {
    /// One sleep record as stitching needs it.
    public struct Stretch: Sendable, Equatable {
        public let start: Int64
        public let end: Int64
        public let stage: String
        public let timeZone: String?

        public init(start: Int64, end: Int64, stage: String?, timeZone: String?) {
            self.start = start
            self.end = end
            self.stage = stage ?? "unknown"
            self.timeZone = timeZone
        }
    }

    /// A stretch of daytime sleep apart from the night.
    public struct Nap: Sendable, Equatable {
        public let start: Int64
        public let end: Int64
        public let asleepHours: Double
    }

    public let night: CalendarDay
    /// Hours asleep (the union of the asleep stages); `nil` when no stretch of the night is an
    /// asleep stage (`isInBedOnly`).
    public let asleepHours: Double?
    public let inBedHours: Double?
    /// Hours per stage, each the union across sources.
    public let stages: [String: Double]
    /// The union of each stage's stretches, in order: what `stages` sums, for a hypnogram.
    public let stageIntervals: [String: [Range<Int64>]]
    public let start: Int64
    public let end: Int64
    public let segments: Int
    public let naps: [Nap]
    /// The zone of the day the night's first stretch was filed under (start and end are shown in it).
    public let timeZone: String?

    /// Whether the night holds no asleep stage (only time in bed, or awake): it has no asleep figure.
    public var isInBedOnly: Bool { asleepHours == nil }

    /// Gaps longer than this separate a nap from the night.
    public static let clusterGap: Int64 = 3 * 3600
    /// A nap lies entirely between these local clock times (seconds after midnight).
    public static let napWindow: ClosedRange<Int64> = (10 * 3600)...(18 * 3600)

    /// The night a stretch belongs to: the local day of its start, or the day before when it
    /// starts before noon.
    public static func night(of start: Int64, timeZone: String?, clock: LocalClock) throws(AnswerError) -> CalendarDay {
        let day = try clock.day(of: start, in: timeZone)
        return try clock.secondOfDay(start, in: timeZone) < 12 * 3600 ? day.previous : day
    }

    /// Stitches the stretches of one night; `nil` when none has any length.
    public init?(night: CalendarDay, stretches all: [Stretch], clock: LocalClock) throws(AnswerError) {
        let stretches = all.filter { $0.end > $0.start }
        guard !stretches.isEmpty else { return nil }
        let clusters = IntervalUnion(stretches.map { $0.start..<$0.end }).clusters(joiningGapsUpTo: Self.clusterGap)
        func asleep(_ members: [Stretch]) -> IntervalUnion {
            IntervalUnion(members.filter { MetricCatalogue.asleepStages.contains($0.stage) }.map { $0.start..<$0.end })
        }
        let members = clusters.map { cluster in stretches.filter { cluster.contains($0.start) } }
        let asleepByCluster = members.map { asleep($0).seconds }
        let main = clusters.indices.max { a, b in
            (asleepByCluster[a], clusters[a].count, -clusters[a].lowerBound) < (asleepByCluster[b], clusters[b].count, -clusters[b].lowerBound)
        }!
        var napIndices: [Int] = []
        for index in clusters.indices where index != main {
            let zone = members[index][0].timeZone
            let cluster = clusters[index]
            let sameDay = try clock.day(of: cluster.lowerBound, in: zone) == clock.day(of: cluster.upperBound - 1, in: zone)
            let from = try clock.secondOfDay(cluster.lowerBound, in: zone)
            let to = try clock.secondOfDay(cluster.upperBound - 1, in: zone) + 1
            if sameDay, Self.napWindow.contains(from), Self.napWindow.contains(to) { napIndices.append(index) }
        }
        naps = napIndices.map { index in
            Nap(start: clusters[index].lowerBound, end: clusters[index].upperBound,
                asleepHours: asleep(members[index]).hours)
        }
        let kept = clusters.indices.filter { !napIndices.contains($0) }.flatMap { members[$0] }
        self.night = night
        asleepHours = kept.contains { MetricCatalogue.asleepStages.contains($0.stage) } ? asleep(kept).hours : nil
        var byStage: [String: [Range<Int64>]] = [:]
        for stretch in kept { byStage[stretch.stage, default: []].append(stretch.start..<stretch.end) }
        let unions = byStage.mapValues { IntervalUnion($0) }
        stages = unions.mapValues(\.hours)
        stageIntervals = unions.mapValues(\.intervals)
        inBedHours = stages["inBed"]
        start = kept.map(\.start).min()!
        timeZone = kept.min { $0.start < $1.start }?.timeZone
        end = kept.map(\.end).max()!
        segments = IntervalUnion(kept.map { $0.start..<$0.end }).intervals.count
    }
}
