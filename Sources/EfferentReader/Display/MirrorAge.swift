import Foundation

/// How old the mirror is, as a person says it: `3 s ago`, `12 min ago`, `5 h ago`, `2 days ago`, `never`.
public enum MirrorAge {
    public static func text(since date: Date?, now: Date = Date()) -> String {
        guard let date else { return "never" }
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<120: return "\(Int(seconds)) s ago"
        case ..<7200: return "\(Int(seconds / 60)) min ago"
        case ..<172_800: return "\(Int(seconds / 3600)) h ago"
        default: return "\(Int(seconds / 86_400)) days ago"
        }
    }

    /// `7 h 12 min`, `45 min`: hours as a duration.
    public static func hours(_ hours: Double) -> String {
        let minutes = Int((hours * 60).rounded())
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}
