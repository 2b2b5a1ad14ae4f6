import EfferentCore

/// An instant as a person or an agent names one on the way in (a workout's start in MCP, the API
/// or the command line): Unix seconds, or the time as every answer prints it (`…Z`, or local with
/// its offset). Only instants within years 0001…9999 are taken, the range every day and instant
/// of the archive lies in, so nothing taken from outside reaches day arithmetic able to overflow
/// (`-9223372036854775808` is refused here, not trapped on later).
public enum InstantArgument {
    /// 0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z, the instants an event may name.
    public static let range = DayEvent.earliestSecond...DayEvent.latestSecond

    /// Unix seconds of `text`, or nil when it names no instant within `range`.
    public static func seconds(_ text: some StringProtocol) -> Int64? {
        guard let seconds = Int64(text) ?? ISOInstant.secondsWritten(text), range.contains(seconds) else { return nil }
        return seconds
    }
}
