import Foundation

/// What a path turned out to hold, as `ExportLocator` decided from its content.
public enum ExportInput {
    /// The Health app's `export.zip`: the main XML entry and its companions (GPX routes under
    /// `workout-routes/`, ECG CSVs under `electrocardiograms/`).
    case zip(ZipArchive, main: ZipEntry, companions: [ZipEntry])
    /// An `export.xml` (bare, or inside an unzipped export folder) and the companion files beside it.
    case xml(URL, companions: [URL])
    /// Efferent's own layout-1 event lines.
    case efferentEvents(URL)
    /// Lines of a dialect another library reads (`LineFormat`: the phone's Puls Sync batches).
    case lines(URL, LineFormat)
}

/// A dialect of JSON lines that a library above the writer reads for `efferent import` (the
/// phone's Puls Sync batches, which the receiver reads as it reads a phone's posts): recognised by
/// its first line, read by its own reader into the import's session.
public struct LineFormat: Sendable {
    /// The import run's format (`import_run.format`), such as `pulshealth-ndjson`.
    public let name: String
    /// Whether a file whose first line is this is the dialect's.
    public let recognises: @Sendable ([UInt8]) -> Bool
    /// A reader of the dialect into a sink, its refusals naming the file's label.
    public let reader: @Sendable (ExportSink, String) -> any LineInputReader

    public init(name: String, recognises: @escaping @Sendable ([UInt8]) -> Bool,
                reader: @escaping @Sendable (ExportSink, String) -> any LineInputReader) {
        self.name = name
        self.recognises = recognises
        self.reader = reader
    }
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
    /// Records and workouts (their parts — statistics, route fixes, beats — are not counted here).
    public var records = 0
    public var activitySummaries = 0
    public var routes = 0
    /// ECG files read.
    public var electrocardiograms = 0
    /// What the input says about the zone its records were made in.
    public var zone = ZoneEvidence()

    public init(records: Int = 0, activitySummaries: Int = 0, routes: Int = 0, electrocardiograms: Int = 0) {
        self.records = records
        self.activitySummaries = activitySummaries
        self.routes = routes
        self.electrocardiograms = electrocardiograms
    }

    /// The counts; what the input said about zones (`zone`) is judged apart, by `WriterContext.settleZone`.
    public static func == (a: ExportTally, b: ExportTally) -> Bool {
        (a.records, a.activitySummaries, a.routes, a.electrocardiograms) == (b.records, b.activitySummaries, b.routes, b.electrocardiograms)
    }
}

/// Which companion file of an export a path names.
enum Companion {
    case route
    case electrocardiogram
    case clinicalDocument

    /// By the folder Apple puts it in (`…/workout-routes/x.gpx`, `…/electrocardiograms/x.csv`).
    init?(path: String) {
        let lower = path.lowercased()
        if lower.contains("workout-routes/"), lower.hasSuffix(".gpx") {
            self = .route
        } else if lower.contains("electrocardiograms/"), lower.hasSuffix(".csv") {
            self = .electrocardiogram
        } else if lower.hasSuffix("export_cda.xml") {
            self = .clinicalDocument
        } else {
            return nil
        }
    }
}
