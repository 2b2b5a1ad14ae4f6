/// A parser of one input format the writer takes — Apple's export XML, a GPX route, Efferent's
/// layout-1 events, and the dialects of JSON lines other libraries read (`LineFormat`: the
/// phone's Puls Sync batches) — fed its bytes in pieces, whatever they come from: a file, a zip
/// entry, an HTTP request body. What it reads goes to its `ExportSink` as it goes, so the same
/// parser serves `efferent import` and a receiver a phone posts to.
public protocol InputReader: AnyObject {
    /// Records (and workouts) handed to the sink so far.
    var recordCount: Int { get }
    /// Reads the next piece; a piece may end anywhere, even inside a line or a tag.
    func feed(_ chunk: [UInt8]) throws
    /// The input has ended: checks it ended where the format says it must.
    func finish() throws
}

/// Bytes in pieces, pulled: a file read front to back, a zip entry inflated and checked as it is
/// read. (An HTTP request body arrives the other way, pushed as it comes; it is fed to an
/// `InputReader` straight from the server's body sink.)
public protocol ByteSource: AnyObject {
    /// The next piece, or nil at the end.
    func next() throws -> [UInt8]?
}

extension InputReader {
    /// Feeds every piece of `source`, then finishes; `afterEach` runs after each piece (progress).
    public func read(from source: some ByteSource, afterEach: (() -> Void)? = nil) throws {
        while let chunk = try source.next() {
            try feed(chunk)
            afterEach?()
        }
        try finish()
    }
}

/// A reader of JSON lines (NDJSON), one dialect a line: split into numbered lines by `lines` as
/// the pieces come, each read whole; `feed` and `finish` are the same for every dialect.
public protocol LineInputReader: InputReader {
    /// The reader's line splitter, in use throughout `feed` and `finish`: `read` must not touch it.
    var lines: NDJSONLines { get set }
    /// One line, numbered from 1 (blank lines are counted, never read).
    func read(line: [UInt8], number: Int) throws
    /// What the input held, as an import reports it.
    var tally: ExportTally { get }
}

extension LineInputReader {
    public func feed(_ chunk: [UInt8]) throws {
        try lines.feed(chunk) { line, number in try read(line: line, number: number) }
    }

    public func finish() throws {
        try lines.finish { line, number in try read(line: line, number: number) }
    }
}

extension HealthExportReader: InputReader {}
extension EfferentEventReader: LineInputReader {}
extension FileChunks: ByteSource {}
extension ZipEntryReader: ByteSource {}

/// A GPX route file as an input: its fixes go to the sink as they are read (under `source`, the
/// one the XML gave the route), the route itself when the file ends.
final class GPXRouteInput: InputReader {
    private let reader: GPXRouteReader
    private let sink: ExportSink
    private(set) var recordCount = 0

    /// `file` is the path the route is reported under (`workout-routes/route_….gpx`).
    init(file: String, sink: ExportSink, source: String = "", deviceModel: String? = nil) {
        reader = GPXRouteReader(file: file, sink: sink, source: source, deviceModel: deviceModel)
        self.sink = sink
    }

    func feed(_ chunk: [UInt8]) throws { try reader.feed(chunk) }
    func finish() throws { try sink.workoutRoute(try reader.finish()) }
}

/// An ECG file (`electrocardiograms/ecg_….csv`) as an input.
final class ECGInput: InputReader {
    private let reader: ECGReader
    private(set) var recordCount = 0

    init(sink: ExportSink, file: String) { reader = ECGReader(sink: sink, file: file) }

    func feed(_ chunk: [UInt8]) throws { try reader.feed(chunk) }
    func finish() throws { recordCount = try reader.finish() }
}
