#if canImport(Glibc)
import Glibc
#endif

/// Log lines to standard error with `write(2)`: one call per line, no `Data` or `FileHandle` on
/// the way, since the service writes one for every request it answers.
public enum StandardError {
    /// Writes `line` and a newline, retrying a short or interrupted write; a line that cannot be
    /// written (a closed descriptor) is dropped, as a log must never stop the service.
    public static func writeLine(_ line: String) {
        var text = line
        text.append("\n")
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
