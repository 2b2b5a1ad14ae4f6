import Foundation
import Synchronization

/// A one-line progress display on stderr for a terminal: done/total, rate, bytes, ETA. A note or
/// an error written meanwhile clears the line first (`clearLine`), so it never lands after the bar.
final class ProgressBar: @unchecked Sendable {
    let label: String
    let unit: String
    let started = Date()
    private var lastDraw = Date.distantPast
    /// Whether some bar's line is on screen now (one bar at a time in a command).
    private static let drawn = Mutex(false)

    init(label: String, unit: String) {
        self.label = label
        self.unit = unit
    }

    /// `totalBytes`, when known, gives the ETA from the share of input read (imports, whose record
    /// count is unknown until the end).
    func update(done: Int, total: Int?, bytes: Int, totalBytes: Int? = nil) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) > 0.1 || done == total else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(done) / elapsed
        var line = "\(label): \(done)" + (total.map { "/\($0)" } ?? "") + " \(unit), \(Int(rate))/s, \(bytes / 1_048_576) MiB"
        if let total, total > 0, done > 0, done < total {
            line += ", ETA \(Int(Double(total - done) / rate)) s"
        } else if let totalBytes, totalBytes > 0, bytes > 0, bytes < totalBytes {
            line += ", ETA \(Int(elapsed * Double(totalBytes - bytes) / Double(bytes))) s"
        }
        Self.drawn.withLock { drawn in
            FileHandle.standardError.write(Data(("\r" + line + "\u{1B}[K").utf8))
            drawn = true
        }
    }

    /// Leaves the bar's last state on its line and moves to the next (call it on every exit: `defer`).
    func finish() {
        Self.drawn.withLock { drawn in
            if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
            drawn = false
        }
    }

    /// Wipes a drawn bar so the next line written starts at the left on a line of its own.
    static func clearLine() {
        drawn.withLock { drawn in
            if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            drawn = false
        }
    }
}
