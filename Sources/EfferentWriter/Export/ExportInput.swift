import Foundation

/// What a path turned out to hold, as `ExportLocator` decided from its content.
public enum ExportInput {
    /// The Health app's `export.zip`: the main XML entry and any GPX route entries.
    case zip(ZipArchive, main: ZipEntry, routes: [ZipEntry])
    /// An `export.xml` (bare, or inside an unzipped export folder) and the GPX files beside it.
    case xml(URL, routes: [URL])
    /// Efferent's own layout-1 event lines.
    case efferentEvents(URL)
    /// PulsHealth sync batches.
    case pulsHealth(URL)
}

/// How far an import has got, for a progress line (records/s, bytes, ETA).
public struct ExportProgress: Sendable, Equatable {
    /// Bytes of the input file consumed (of the compressed archive, when zipped).
    public var bytesRead: UInt64
    /// The input's size in bytes (the archive's, when zipped).
    public var totalBytes: UInt64
    /// Records and workouts handed to the sink so far.
    public var records: Int
}

/// What an import handed to its sink.
public struct ExportTally: Sendable, Equatable {
    public var records = 0
    public var activitySummaries = 0
    public var routes = 0

    public init(records: Int = 0, activitySummaries: Int = 0, routes: Int = 0) {
        self.records = records
        self.activitySummaries = activitySummaries
        self.routes = routes
    }
}
