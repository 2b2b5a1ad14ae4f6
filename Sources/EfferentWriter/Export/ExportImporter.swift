import Foundation

/// Reads whatever `ExportLocator` found into an `ExportSink`, chunk by chunk, reporting progress.
public enum ExportImporter {
    /// Locates and reads the export at `url` (an NDJSON file also in one of `lineFormats`).
    public static func read(_ url: URL, into sink: ExportSink, lineFormats: [LineFormat] = [],
                            progress: ((ExportProgress) -> Void)? = nil) throws -> ExportTally {
        try read(ExportLocator.locate(url, lineFormats: lineFormats), into: sink, progress: progress)
    }

    /// Reads `input` into `sink`; `progress` is called after every chunk (about every MiB).
    /// Whatever the format, one loop: a source of bytes feeding the format's `InputReader`.
    public static func read(_ input: ExportInput, into sink: ExportSink, progress: ((ExportProgress) -> Void)? = nil) throws -> ExportTally {
        var tally = ExportTally()
        switch input {
        case let .zip(archive, main, companions):
            let reader = HealthExportReader(sink: sink, label: main.fileName)
            let entry = try archive.open(main)
            try reader.read(from: entry) {
                progress?(ExportProgress(bytesRead: entry.compressedBytesRead, totalBytes: archive.fileSize, records: reader.recordCount))
            }
            var before = entry.compressedBytesRead
            tally = ExportTally(records: reader.recordCount, activitySummaries: reader.summaryCount, routes: reader.routeCount)
            tally.zone = reader.zoneEvidence
            for companion in companions {
                var stream: ZipEntryReader?
                try readCompanion(companionName(companion.name), reader: reader, sink: sink, tally: &tally) {
                    let opened = try archive.open(companion)
                    stream = opened
                    return opened
                }
                before += stream?.compressedBytesRead ?? 0
                progress?(ExportProgress(bytesRead: before, totalBytes: archive.fileSize, records: tally.records))
            }
        case let .xml(url, companions):
            let reader = HealthExportReader(sink: sink, label: url.lastPathComponent)
            try read(url, with: reader, progress)
            tally = ExportTally(records: reader.recordCount, activitySummaries: reader.summaryCount, routes: reader.routeCount)
            tally.zone = reader.zoneEvidence
            for companion in companions {
                let folder = companion.deletingLastPathComponent().lastPathComponent
                let name = companion.lastPathComponent == "export_cda.xml" ? "export_cda.xml" : folder + "/" + companion.lastPathComponent
                try readCompanion(name, reader: reader, sink: sink, tally: &tally) { try FileChunks(url: companion) }
            }
        case let .efferentEvents(url):
            let reader = EfferentEventReader(sink: sink, label: url.lastPathComponent)
            try read(url, with: reader, progress)
            tally = reader.tally
        case let .lines(url, format):
            let reader = format.reader(sink, url.lastPathComponent)
            try read(url, with: reader, progress)
            tally = reader.tally
        }
        return tally
    }

    /// Reads one companion file, named as the XML names it (`workout-routes/x.gpx`), from the
    /// source `open` gives (opened only when the file is read). GPX fixes are filed under the
    /// source the XML gave the route; Health Records' CDA document is left out unread.
    private static func readCompanion(_ name: String, reader: HealthExportReader, sink: ExportSink, tally: inout ExportTally,
                                      open: () throws -> any ByteSource) throws {
        switch Companion(path: name) {
        case .route:
            let owner = reader.routeSources[name]
            try GPXRouteInput(file: name, sink: sink, source: owner?.source ?? "", deviceModel: owner?.deviceModel).read(from: open())
            tally.routes += 1
        case .electrocardiogram:
            try ECGInput(sink: sink, file: name).read(from: open())
            tally.electrocardiograms += 1
        case .clinicalDocument:
            try sink.leftOut(.clinicalDocument)
        case nil:
            return
        }
    }

    /// A plain file through `reader`, reporting progress by the file's bytes.
    private static func read(_ url: URL, with reader: some InputReader, _ progress: ((ExportProgress) -> Void)?) throws {
        let file = try FileChunks(url: url)
        try reader.read(from: file) {
            progress?(ExportProgress(bytesRead: file.bytesRead, totalBytes: file.size, records: reader.recordCount))
        }
    }

    /// `apple_health_export/workout-routes/x.gpx` → `workout-routes/x.gpx`, as `FileReference` names it.
    private static func companionName(_ entryName: String) -> String {
        for folder in ["workout-routes/", "electrocardiograms/"] {
            if let range = entryName.range(of: folder) { return String(entryName[range.lowerBound...]) }
        }
        return entryName.split(separator: "/").last.map(String.init) ?? entryName
    }
}
