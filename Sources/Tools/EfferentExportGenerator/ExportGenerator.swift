import Foundation

/// Generates a realistic Apple Health export with known true answers.
///
/// ```swift
/// let generator = ExportGenerator(options: ExportOptions(years: 1, seed: 7))
/// let truths = try generator.writeZip(to: folder.appending(path: "export.zip"))
/// // folder/export.zip, and folder/export.truths.json (the same truths as JSON)
/// ```
///
/// The export is a function of the options alone: one seed, one set of bytes.
public struct ExportGenerator: Sendable {
    public let options: ExportOptions
    let timeline: ExportTimeline

    public init(options: ExportOptions) {
        self.options = options
        timeline = ExportTimeline(options: options)
    }

    /// The expected answers, without writing anything.
    public func truths() -> ExportTruths {
        TruthBuilder(options: options, timeline: timeline).build()
    }

    /// Writes the zip at `url` and its truths beside it (`<name>.truths.json`); returns the truths.
    @discardableResult
    public func writeZip(to url: URL) throws -> ExportTruths {
        let truths = truths()
        let zip = try ZipArchiveWriter(url: url, compression: options.compression, forceZip64: options.forceZip64)
        let quirks = options.quirks
        try zip.addEntry("apple_health_export/", [])
        if quirks.macArchiveLitter {
            try zip.addEntry("apple_health_export/.DS_Store", MacArchiveLitter.dsStore)
            try zip.addEntry("__MACOSX/apple_health_export/._.DS_Store", MacArchiveLitter.appleDouble)
        }
        try zip.beginEntry(truths.mainXMLPath)
        try ExportXMLWriter(options: options, timeline: timeline, truths: truths, sink: zip).write()
        try zip.endEntry()
        if quirks.macArchiveLitter {
            let name = (truths.mainXMLPath as NSString).lastPathComponent
            try zip.addEntry("__MACOSX/apple_health_export/._" + name, MacArchiveLitter.appleDouble)
        }
        if quirks.clinicalDocument {
            try zip.addEntry("apple_health_export/export_cda.xml", MacArchiveLitter.clinicalDocument)
        }
        var routes = Set<String>()
        var recordings = false
        for index in 0..<timeline.dayCount {
            let plan = DayPlan(index: index, timeline: timeline, seed: options.seed)
            if let ecg = plan.electrocardiogram {
                if !recordings { try zip.addEntry("apple_health_export/electrocardiograms/", []) }
                recordings = true
                try zip.addEntry("apple_health_export/" + ECGFile.path(plan),
                                 ECGFile.bytes(start: ecg.start, voltages: ecg.voltages, offset: timeline.exportOffset))
            }
            guard let workout = plan.workout, workout.hasRoute else { continue }
            let path = TruthBuilder.routePath(workout, timeline: timeline)
            if routes.isEmpty { try zip.addEntry("apple_health_export/workout-routes/", []) }
            guard routes.insert(path).inserted else { continue }
            try zip.addEntry("apple_health_export/" + path, GPXRoute.bytes(for: workout, exportInstant: timeline.exportInstant))
        }
        try zip.finish()
        try writeTruths(truths, beside: url)
        return truths
    }

    /// Writes the main XML alone at `url` and its truths beside it; returns the truths.
    @discardableResult
    public func writeXML(to url: URL) throws -> ExportTruths {
        let truths = truths()
        let file = try FileSink(url: url)
        try ExportXMLWriter(options: options, timeline: timeline, truths: truths, sink: file).write()
        try file.close()
        try writeTruths(truths, beside: url)
        return truths
    }

    /// The main XML in memory (for small exports in tests).
    public func xmlBytes() throws -> [UInt8] {
        let memory = MemorySink()
        try ExportXMLWriter(options: options, timeline: timeline, truths: truths(), sink: memory).write()
        return memory.bytes
    }

    /// `export.zip` → `export.truths.json`.
    public static func truthsURL(beside url: URL) -> URL {
        url.deletingPathExtension().appendingPathExtension("truths.json")
    }

    private func writeTruths(_ truths: ExportTruths, beside url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try encoder.encode(truths).write(to: Self.truthsURL(beside: url))
    }
}
