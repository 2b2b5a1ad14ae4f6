import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The few POSIX file calls that make a write durable and a name never overwritten: `fsync` of a
/// file or of the directory that holds a new name (https://man7.org/linux/man-pages/man2/fsync.2.html),
/// `link` to publish a finished file under a name that must not exist yet, `rename` to replace one,
/// and the process umask.
/// Each call is retried on `EINTR` and its return code checked.
public enum FileDurability {
    /// New files of this process are readable by its owner only (umask 077): every file Efferent
    /// writes holds keys, health records or archives. Returns the mask that was in force.
    @discardableResult
    public static func restrictNewFilesToOwner() -> UInt32 {
        UInt32(umask(0o077))
    }

    /// Makes each existing file among `paths` readable by its owner only; returns those that were
    /// readable by others (a file from before the umask was 077). A file that stays readable by
    /// others (its mode cannot be changed: another owner, a read-only file system) is an error,
    /// never passed over: these files hold keys and health records.
    @discardableResult
    public static func restrictToOwner(_ paths: [String]) throws(FileDurabilityError) -> [String] {
        var tightened = [String]()
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            _ = try retrying("making \(path) readable by its owner only") { chmod(path, 0o600) }
            tightened.append(path)
        }
        return tightened
    }

    /// Flushes the file or directory at `path` to the disk.
    public static func synchronize(_ path: String) throws(FileDurabilityError) {
        let descriptor = try retrying("opening \(path)") { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(descriptor) }
        _ = try retrying("flushing \(path)") { fsync(descriptor) }
    }

    /// Gives the finished file at `source` the name `destination`, which must not exist, and drops
    /// `source`; then flushes the folder so the new name survives a power loss.
    public static func publish(_ source: String, as destination: String) throws(FileDurabilityError) {
        _ = try retrying("naming \(destination)") { link(source, destination) }
        _ = try retrying("removing \(source)") { unlink(source) }
        try synchronize((destination as NSString).deletingLastPathComponent.isEmpty ? "." : (destination as NSString).deletingLastPathComponent)
    }

    /// Puts the finished file at `source` in place of `destination` in one step (`rename(2)`: a
    /// reader sees the old file or the new one, never neither), after flushing it; then flushes the
    /// folder so the new name survives a power loss. `durable: false` skips both flushes (derived
    /// files, rebuilt when lost: the reader's index).
    public static func replace(_ destination: String, with source: String, durable: Bool = true) throws(FileDurabilityError) {
        if durable { try synchronize(source) }
        _ = try retrying("naming \(destination)") { rename(source, destination) }
        guard durable else { return }
        try synchronize((destination as NSString).deletingLastPathComponent.isEmpty ? "." : (destination as NSString).deletingLastPathComponent)
    }

    /// Removes the file at `path` if it exists (a leftover of an interrupted build).
    public static func remove(_ path: String) {
        _ = unlink(path)
    }

    /// Runs a call that answers -1 and sets errno on failure, again while it was interrupted.
    private static func retrying(_ context: String, _ call: () -> Int32) throws(FileDurabilityError) -> Int32 {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw FileDurabilityError(code: code, context: context)
        }
    }
}

/// A failed file call: errno and the operation, as a sentence.
public struct FileDurabilityError: Error, CustomStringConvertible, Equatable {
    public let code: Int32
    public let context: String

    public init(code: Int32, context: String) {
        self.code = code
        self.context = context
    }

    /// The name asked for exists already.
    public var isExisting: Bool { code == EEXIST }
    /// The disk (or the user's quota) is full: a retry may pass once space is freed.
    public var isFull: Bool { code == ENOSPC || code == EDQUOT }

    public var description: String { "Failed while \(context): \(String(cString: strerror(code)))." }
}
