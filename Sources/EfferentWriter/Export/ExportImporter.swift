import Foundation

/// Reads whatever `ExportLocator` found into an `ExportSink`, chunk by chunk, reporting progress.
public enum ExportImporter {
    /// Locates and reads the export at `url`.
    public static func read(_ url: URL, into sink: ExportSink, progress: ((ExportProgress) -> Void)? = nil) throws -> ExportTally {
        try read(ExportLocator.locate(url), into: sink, progress: progress)
    }

    /// Reads `input` into `sink`; `progress` is called after every chunk (about every MiB).
    public static func read(_ input: ExportInput, into sink: ExportSink, progress: ((ExportProgress) -> Void)? = nil) throws -> ExportTally {
        var tally = ExportTally()
        switch input {
        case let .zip(archive, main, routes):
            let reader = HealthExportReader(sink: sink, label: main.fileName)
            var before: UInt64 = 0
            let entry = try archive.open(main)
            while let chunk = try entry.next() {
                try reader.feed(chunk)
                progress?(ExportProgress(bytesRead: entry.compressedBytesRead, totalBytes: archive.fileSize, records: reader.recordCount))
            }
            try reader.finish()
            before = entry.compressedBytesRead
            tally = ExportTally(records: reader.recordCount, activitySummaries: reader.summaryCount, routes: reader.routeCount)
            for route in routes {
                let gpx = GPXRouteReader(file: routeName(route.name))
                let stream = try archive.open(route)
                while let chunk = try stream.next() { try gpx.feed(chunk) }
                try sink.workoutRoute(try gpx.finish())
                tally.routes += 1
                before += stream.compressedBytesRead
                progress?(ExportProgress(bytesRead: before, totalBytes: archive.fileSize, records: tally.records))
            }
        case let .xml(url, routes):
            let reader = HealthExportReader(sink: sink, label: url.lastPathComponent)
            let file = try FileChunks(url: url)
            while let chunk = try file.next() {
                try reader.feed(chunk)
                progress?(ExportProgress(bytesRead: file.bytesRead, totalBytes: file.size, records: reader.recordCount))
            }
            try reader.finish()
            tally = ExportTally(records: reader.recordCount, activitySummaries: reader.summaryCount, routes: reader.routeCount)
            for route in routes {
                let gpx = GPXRouteReader(file: "workout-routes/" + route.lastPathComponent)
                let routeFile = try FileChunks(url: route)
                while let chunk = try routeFile.next() { try gpx.feed(chunk) }
                try sink.workoutRoute(try gpx.finish())
                tally.routes += 1
            }
        case let .efferentEvents(url):
            let reader = EfferentEventReader(sink: sink, label: url.lastPathComponent)
            try pump(url, progress, { try reader.feed($0) }, records: { reader.recordCount })
            try reader.finish()
            tally.records = reader.recordCount
        case let .pulsHealth(url):
            let reader = PulsHealthReader(sink: sink, label: url.lastPathComponent)
            try pump(url, progress, { try reader.feed($0) }, records: { reader.recordCount })
            try reader.finish()
            tally.records = reader.recordCount
        }
        return tally
    }

    private static func pump(_ url: URL, _ progress: ((ExportProgress) -> Void)?, _ feed: ([UInt8]) throws -> Void, records: () -> Int) throws {
        let file = try FileChunks(url: url)
        while let chunk = try file.next() {
            try feed(chunk)
            progress?(ExportProgress(bytesRead: file.bytesRead, totalBytes: file.size, records: records()))
        }
    }

    /// `apple_health_export/workout-routes/x.gpx` → `workout-routes/x.gpx`, as `FileReference` names it.
    private static func routeName(_ entryName: String) -> String {
        guard let range = entryName.range(of: "workout-routes/") else { return entryName }
        return String(entryName[range.lowerBound...])
    }
}
