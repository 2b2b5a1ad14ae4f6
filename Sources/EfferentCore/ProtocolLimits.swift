/// Every number the protocol fixes, in one place, with the section it comes from.
public enum ProtocolLimits {
    /// §5.1 / §6: days one upload may carry ("a month").
    public static let maxDaysPerRequest = 31
    /// §6: a request body.
    public static let maxRequestBytes = 5 * 1024 * 1024
    /// §6: one sealed day.
    public static let maxDayBytes = 1024 * 1024
    /// §9.5: the writer cuts its frames here, below the service's 5 MiB.
    public static let writerFrameBytes = 4 * 1024 * 1024
    /// §6: a range answer holds at most this many days and bytes.
    public static let maxRangeDays = 92
    public static let maxRangeBytes = 8 * 1024 * 1024
    /// §6: a listing page.
    public static let maxListingPage = 1000
    /// §5.3 / §7: signatures are accepted within this many seconds of the service clock.
    public static let clockToleranceSeconds: Int64 = 300
    /// §6: what a bucket and the whole service may ever be handed.
    public static let maxBucketBytes: Int64 = 512 * 1024 * 1024
    public static let maxServiceBytes: Int64 = 100 * 1024 * 1024 * 1024
    /// §6 / §8: edits.
    public static let maxEditBytes = 256 * 1024
    public static let maxPendingEdits = 500
    public static let maxOutcomeBytes = 64 * 1024
    public static let maxEditItems = 500
    public static let maxEditPlaintextBytes = 1024 * 1024
    /// §6: the edits listing page.
    public static let maxEditsPage = 200
    /// §2.1: readers cap one answer, and so one inflated body.
    public static let maxAnswerBytes = 16 * 1024 * 1024
    public static let maxInflatedBytes = 16 * 1024 * 1024
    /// §6: the earliest day the service takes.
    public static let earliestDay = CalendarDay(year: 1900, month: 1, day: 1)!
    /// §8: replay window between edits.
    public static let editReplayWindowSeconds: Int64 = 15 * 60
}
