import CBenchFloor
#if canImport(Glibc)
import Glibc
#endif

/// The bench's C: the same-run floors of `CBenchFloor` and the process clocks it reads, behind
/// Swift arrays and strings, so `efferent-bench` itself holds no pointer. Never used by the product.
public enum BenchFloor {
    /// Raw deflate then an HPKE seal of `count` bodies laid end to end in `bodies` (`lengths`
    /// each), into `scratch`; the total sealed bytes, or -1.
    public static func seal(_ bodies: [UInt8], lengths: [Int], to publicKey: [UInt8], scratch: inout [UInt8]) -> Int64 {
        precondition(publicKey.count == 32 && lengths.reduce(0, +) <= bodies.count)
        return Int64(efferent_floor_seal(bodies, lengths, lengths.count, publicKey, &scratch, scratch.count))
    }

    /// HPKE open then raw inflate of the blobs laid end to end in `sealed`; the total inflated
    /// bytes, or -1.
    public static func open(_ sealed: [UInt8], lengths: [Int], privateKey: [UInt8], publicKey: [UInt8], scratch: inout [UInt8]) -> Int64 {
        precondition(privateKey.count == 32 && publicKey.count == 32 && lengths.reduce(0, +) <= sealed.count)
        return Int64(efferent_floor_open(sealed, lengths, lengths.count, privateKey, publicKey, &scratch, scratch.count))
    }

    /// HPKE open alone of the blobs laid end to end in `sealed`; the total plaintext bytes, or -1.
    public static func openHPKE(_ sealed: [UInt8], lengths: [Int], privateKey: [UInt8], publicKey: [UInt8], scratch: inout [UInt8]) -> Int64 {
        precondition(privateKey.count == 32 && publicKey.count == 32 && lengths.reduce(0, +) <= sealed.count)
        return Int64(efferent_floor_open_hpke(sealed, lengths, lengths.count, privateKey, publicKey, &scratch, scratch.count))
    }

    /// A started floor daemon; `stop()` ends it (once).
    public final class Daemon {
        private var handle: UnsafeMutableRawPointer?
        private let stopper: (UnsafeMutableRawPointer) -> Void
        public let port: Int

        init(_ handle: UnsafeMutableRawPointer, port: UInt32, stopper: @escaping (UnsafeMutableRawPointer) -> Void) {
            self.handle = handle
            self.port = Int(port)
            self.stopper = stopper
        }

        public func stop() {
            if let handle { stopper(handle) }
            handle = nil
        }

        deinit { stop() }
    }

    /// A bare libmicrohttpd daemon (`threads` in its pool) answering every request with `body`.
    public static func httpStart(answering body: [UInt8], threads: UInt32) -> Daemon? {
        var port: UInt32 = 0
        guard let handle = efferent_floor_http_start(body, body.count, threads, &port) else { return nil }
        return Daemon(handle, port: port) { efferent_floor_http_stop($0) }
    }

    /// libmicrohttpd answering as the service answers one signed range read (bench_floor.h).
    public static func rangeStart(database: String, bucket: String, after: String, through: String, maxDays: Int32,
                                  publicKey: [UInt8], signature: [UInt8], message: [UInt8]) -> Daemon? {
        precondition(publicKey.count == 32 && signature.count == 64)
        var port: UInt32 = 0
        guard let handle = efferent_floor_range_start(database, bucket, after, through, maxDays, publicKey, signature,
                                                      message, message.count, &port) else { return nil }
        return Daemon(handle, port: port) { efferent_floor_range_stop($0) }
    }

    /// `rows` rows of `blob` into a fresh SQLite file, `perTransaction` a transaction; 0 or SQLite's code.
    public static func sqliteInsert(path: String, blob: [UInt8], rows: Int32, perTransaction: Int32) -> Int32 {
        efferent_floor_sqlite_insert(path, blob, blob.count, rows, perTransaction)
    }

    /// CPU seconds the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`).
    public static var threadCPUSeconds: Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// What the children this process has waited for used (`getrusage(RUSAGE_CHILDREN)`): CPU
    /// seconds, user and system, and 512-byte blocks written.
    public static func childrenUsage() -> (cpuSeconds: Double, blocksWritten: Int) {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let seconds = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return (seconds, usage.ru_oublock)
    }

    /// Removes the empty folder at `path` (`rmdir(2)`: a cgroup, whose files cannot be deleted one by one).
    public static func removeDirectory(_ path: String) {
        _ = rmdir(path)
    }
}
