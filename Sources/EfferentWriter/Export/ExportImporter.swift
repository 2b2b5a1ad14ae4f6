import Foundation

/// Reads whatever `ExportLocator` found into an `ExportSink`, chunk by chunk, reporting progress.
public enum ExportImporter {
    /// Locates and reads the export at `url`.
    public static func read(_ url: URL, into sink: ExportSink, progress: ((ExportProgress) -> Void)? = nil) throws -> ExportTally {
        try read(ExportLocator.locate(url), into: sink, progress: progress)
    }

    /// Reads `input` into `sink`; `progress` is called after every chunk (about every MiB).
    /// Whatever the format, one loop: a source of bytes feeding the format's `InputReader`.
    public static func read(_ input: ExportInput, into sink: ExportSink, progress: ((ExportProgress) -> Void)? = nil) throws -> ExportTally {
        var tally = ExportTally()
        switch input {
        case let .zip(archive, main, routes):
            let reader = HealthExportReader(sink: sink, label: main.fileName)
            let entry = try archive.open(main)
            try reader.read(from: entry) {
                progress?(ExportProgress(bytesRead: entry.compressedBytesRead, totalBytes: archive.fileSize, records: reader.recordCount))
            }
            var before = entry.compressedBytesRead
            tally = ExportTally(records: reader.recordCount, activitySummaries: reader.summaryCount, routes: reader.routeCount)
            for route in routes {
                let stream = try archive.open(route)
                try GPXRouteInput(file: routeName(route.name), sink: sink).read(from: stream)
                tally.routes += 1
                before += stream.compressedBytesRead
                progress?(ExportProgress(bytesRead: before, totalBytes: archive.fileSize, records: tally.records))
            }
        case let .xml(url, routes):
            let reader = HealthExportReader(sink: sink, label: url.lastPathComponent)
            try read(url, with: reader, progress)
            tally = ExportTally(records: reader.recordCount, activitySummaries: reader.summaryCount, routes: reader.routeCount)
            for route in routes {
                try GPXRouteInput(file: "workout-routes/" + route.lastPathComponent, sink: sink).read(from: FileChunks(url: route))
                tally.routes += 1
            }
        case let .efferentEvents(url):
            let reader = EfferentEventReader(sink: sink, label: url.lastPathComponent)
            try read(url, with: reader, progress)
            tally.records = reader.recordCount
        case let .pulsHealth(url):
            let reader = PulsHealthReader(sink: sink, label: url.lastPathComponent)
            try read(url, with: reader, progress)
            tally.records = reader.recordCount
        }
        return tally
    }

    /// A plain file through `reader`, reporting progress by the file's bytes.
    private static func read(_ url: URL, with reader: some InputReader, _ progress: ((ExportProgress) -> Void)?) throws {
        let file = try FileChunks(url: url)
        try reader.read(from: file) {
            progress?(ExportProgress(bytesRead: file.bytesRead, totalBytes: file.size, records: reader.recordCount))
        }
    }

    /// `apple_health_export/workout-routes/x.gpx` → `workout-routes/x.gpx`, as `FileReference` names it.
    private static func routeName(_ entryName: String) -> String {
        guard let range = entryName.range(of: "workout-routes/") else { return entryName }
        return String(entryName[range.lowerBound...])
    }
}
