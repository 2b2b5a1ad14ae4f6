/// Bytes kept in memory (tests, small exports).
final class MemorySink: ExportSink {
    private(set) var bytes: [UInt8] = []

    func write(_ bytes: [UInt8]) throws { self.bytes += bytes }
}
