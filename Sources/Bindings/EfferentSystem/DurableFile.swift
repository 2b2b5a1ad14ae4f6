import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whole files replaced so that a crash leaves the old bytes or the new ones, never half of
/// either — and, when durable, so that a power cut after the call returns loses neither.
///
/// The bytes go to `<path>.partial` (every byte, short writes and `EINTR` retried), which is
/// flushed (`fsync`), closed (its result checked: NFS and some disks report a failed write only
/// there), renamed over `path`, and then the directory itself is flushed, since the rename lives
/// in the directory (fsync(2): "an explicit fsync() on a file descriptor for the directory is
/// also needed"). Any failure removes the partial file and throws, naming the reason.
public enum DurableFile {
    /// Replaces `path` with `bytes`, mode `mode`. `durable: false` skips both flushes (files that
    /// are fetched again when lost, such as a mirror's days).
    public static func write(_ bytes: [UInt8], to path: String, mode: UInt32 = 0o600, durable: Bool = true) throws(FileWriteError) {
        try write(bytes, to: path, mode: mode, durable: durable, calls: .system)
    }

    static func write(_ bytes: [UInt8], to path: String, mode: UInt32, durable: Bool, calls: FileCalls) throws(FileWriteError) {
        let partial = path + ".partial"
        func fail(_ code: Int32, _ what: String = "") -> FileWriteError {
            FileWriteError(path: path, reason: String(cString: strerror(code)) + what)
        }
        let fd = try retrying { calls.open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
            .get(or: { fail($0) })
        var isOpen = true
        func abandon() {
            if isOpen { _ = calls.close(fd) }
            calls.unlink(partial)
        }
        // A partial file left by an earlier crash keeps its old mode under O_TRUNC: set it.
        let chmodCode = calls.fchmod(fd, mode)
        guard chmodCode == 0 else { abandon(); throw fail(chmodCode) }
        var offset = 0
        while offset < bytes.count {
            let (written, code) = calls.write(fd, bytes[offset...])
            if written < 0 && code == EINTR { continue }
            guard written > 0 else { abandon(); throw fail(written == 0 ? ENOSPC : code) }
            offset += written
        }
        if durable {
            let code = retryingCode { calls.fsync(fd) }
            guard code == 0 else { abandon(); throw fail(code) }
        }
        isOpen = false
        // Linux releases the descriptor even when close is interrupted, so EINTR is not retried
        // (a retry could close a descriptor another thread just opened); other codes mean the
        // bytes may not have landed.
        let closeCode = calls.close(fd)
        guard closeCode == 0 || closeCode == EINTR else { abandon(); throw fail(closeCode) }
        let renameCode = calls.rename(partial, path)
        guard renameCode == 0 else { abandon(); throw fail(renameCode) }
        guard durable else { return }
        let directory = (path as NSString).deletingLastPathComponent
        let directoryFD = try retrying { calls.open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) }
            .get(or: { fail($0, " while flushing its directory") })
        let syncCode = retryingCode { calls.fsync(directoryFD) }
        _ = calls.close(directoryFD)
        guard syncCode == 0 else { throw fail(syncCode, " while flushing its directory") }
    }

    /// Calls `body` again while it is interrupted by a signal.
    private static func retrying(_ body: () -> (Int32, Int32)) -> Outcome {
        while true {
            let (result, code) = body()
            if result < 0 && code == EINTR { continue }
            return result < 0 ? .failed(code) : .done(result)
        }
    }

    private static func retryingCode(_ body: () -> Int32) -> Int32 {
        while true {
            let code = body()
            if code != EINTR { return code }
        }
    }

    private enum Outcome {
        case done(Int32)
        case failed(Int32)

        func get(or error: (Int32) -> FileWriteError) throws(FileWriteError) -> Int32 {
            switch self {
            case let .done(value): return value
            case let .failed(code): throw error(code)
            }
        }
    }
}

/// A whole-file write that did not happen: the path and the system's reason, never the bytes.
public struct FileWriteError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "Cannot write \(path): \(reason)." }
}

/// The system calls a durable write makes, each answering its result and `errno` (0 when it
/// succeeded); tests replace them to make one fail or be interrupted.
struct FileCalls {
    var open: (String, Int32, UInt32) -> (Int32, Int32)
    var fchmod: (Int32, UInt32) -> Int32
    var write: (Int32, ArraySlice<UInt8>) -> (Int, Int32)
    var fsync: (Int32) -> Int32
    var close: (Int32) -> Int32
    var rename: (String, String) -> Int32
    var unlink: (String) -> Void

    static var system: FileCalls { FileCalls(
        open: { path, flags, mode in
            let fd = Glibc.open(path, flags, mode_t(mode))
            return (fd, fd < 0 ? errno : 0)
        },
        fchmod: { fd, mode in Glibc.fchmod(fd, mode_t(mode)) == 0 ? 0 : errno },
        write: { fd, bytes in
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            return (written, written < 0 ? errno : 0)
        },
        fsync: { fd in Glibc.fsync(fd) == 0 ? 0 : errno },
        close: { fd in Glibc.close(fd) == 0 ? 0 : errno },
        rename: { from, to in Glibc.rename(from, to) == 0 ? 0 : errno },
        unlink: { path in _ = Glibc.unlink(path) }) }
}
