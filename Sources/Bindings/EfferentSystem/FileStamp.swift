import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file's size and modification time from one `stat(2)`: what the reader's index compares to
/// tell that a mirrored day's file is still the one it summarised (as make and rsync do).
public struct FileStamp: Sendable, Equatable {
    public let size: Int64
    /// Nanoseconds since the epoch.
    public let modified: Int64

    public init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }

    /// The stamp of `path`, or nil when it does not exist.
    public static func of(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}
