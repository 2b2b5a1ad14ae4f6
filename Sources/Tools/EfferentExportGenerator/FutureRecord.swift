/// The one record dated in the future (the 2030 quirk, §1.4 "Data errors").
enum FutureRecord {
    static let date = LocalDate(year: 2030, month: 1, day: 6)
    /// 2030-01-06 08:00 in Paris (+0100).
    static var instant: Int64 { Int64(date.daysSinceEpoch) * 86400 + 7 * 3600 }
}
