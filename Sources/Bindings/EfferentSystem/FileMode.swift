import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file's permission bits, read and set with `stat(2)` and `chmod(2)`: the profile keeps keys
/// owner-only and refuses a secret anybody else can read.
public enum FileMode {
    /// The permission bits of `path` (0o600 for an owner-only file), or nil when it does not exist.
    public static func permissions(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    /// The user id that owns `path`, or nil when it does not exist.
    public static func owner(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_uid
    }

    /// Gives `path` to `user` and `group` (`chown(2)`: root only); whether it changed hands.
    @discardableResult
    public static func changeOwner(of path: String, user: UInt32, group: UInt32) -> Bool {
        chown(path, user, group) == 0
    }

    /// Sets the permission bits of `path`.
    public static func set(_ mode: UInt32, on path: String) throws(FileWriteError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw FileWriteError(path: path, reason: String(cString: strerror(errno))) }
    }
}

/// What kind of file a path names, from `stat(2)` (symbolic links followed, as `fileExists` does).
public enum FileKind {
    /// Whether `path` is a folder; nil when nothing is there.
    public static func isDirectory(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT == S_IFDIR
    }
}
