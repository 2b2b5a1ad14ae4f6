/// What to generate: how many years, from which seed, with which quirks, packed how.
public struct ExportOptions: Sendable, Equatable {
    /// How zip entries are stored.
    public enum Compression: Sendable, Equatable {
        /// Uncompressed (zip method 0): the fastest to write.
        case store
        /// Raw deflate (zip method 8) at this zlib level.
        case deflate(level: Int32)
    }

    /// Whole years of data ending on `lastDay`; at least 1.
    public var years: Int
    public var seed: UInt64
    public var quirks: ExportQuirks
    public var compression: Compression
    /// The last local day with data (the export is taken the next morning, 09:30 local).
    public var lastDay: LocalDate
    /// When set, only the last `days` days (a small fixture); `years` is then ignored.
    public var days: Int?
    /// Test hook: write zip64 records for every entry, as a zip past 4 GB needs.
    public var forceZip64: Bool

    public init(years: Int = 1, seed: UInt64 = 1, quirks: ExportQuirks = .all,
                compression: Compression = .deflate(level: 1),
                lastDay: LocalDate = LocalDate(year: 2025, month: 6, day: 14), days: Int? = nil, forceZip64: Bool = false) {
        self.years = max(1, years)
        self.seed = seed
        self.quirks = quirks
        self.compression = compression
        self.lastDay = lastDay
        self.days = days.map { max(2, $0) }
        self.forceZip64 = forceZip64
    }
}
