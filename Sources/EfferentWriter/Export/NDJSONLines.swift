/// Splits a byte stream into lines (`\n`, with an optional `\r` before it), numbered from 1, for
/// the NDJSON readers; blank lines are skipped but counted.
public struct NDJSONLines: Sendable {
    public let label: String
    private var partial: [UInt8] = []
    public private(set) var lineNumber = 0

    /// The longest line kept waiting for its end.
    public let maximumLineBytes: Int

    public init(label: String, maximumLineBytes: Int = 64 << 20) {
        self.label = label
        self.maximumLineBytes = maximumLineBytes
    }

    /// Calls `handler` with each complete line in `chunk` (and any carried over from before).
    public mutating func feed(_ chunk: [UInt8], _ handler: ([UInt8], Int) throws -> Void) throws {
        var start = 0
        var index = 0
        while index < chunk.count {
            if chunk[index] == 0x0A {
                if partial.isEmpty {
                    try emit(Array(chunk[start..<index]), handler)
                } else {
                    partial += chunk[start..<index]
                    let line = partial
                    partial = []
                    try emit(line, handler)
                }
                start = index + 1
            }
            index += 1
        }
        partial += chunk[start...]
        guard partial.count <= maximumLineBytes else {
            throw ExportError.malformedLine(file: label, line: lineNumber + 1, problem: "a line longer than \(maximumLineBytes >> 20) MiB")
        }
    }

    /// Flushes a last line that has no `\n`.
    public mutating func finish(_ handler: ([UInt8], Int) throws -> Void) throws {
        guard !partial.isEmpty else { return }
        let line = partial
        partial = []
        try emit(line, handler)
    }

    private mutating func emit(_ line: [UInt8], _ handler: ([UInt8], Int) throws -> Void) throws {
        lineNumber += 1
        // A whole line inside one piece never waited as `partial`: its length is checked here.
        guard line.count <= maximumLineBytes else {
            throw ExportError.malformedLine(file: label, line: lineNumber, problem: "a line longer than \(maximumLineBytes >> 20) MiB")
        }
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        guard line[..<end].contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        try handler(end == line.count ? line : Array(line[..<end]), lineNumber)
    }
}
