import EfferentSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Ports on 127.0.0.1 for tests that start a real server process: a free one to hand it, and
/// whether it is accepting connections yet.
public enum LoopbackPort {
    /// A port nobody listens on right now (bound to 0, read back, released), rather than a random
    /// guess that may meet another test's server or the test database.
    public static func free() -> Int {
        let fd = LoopbackSocket.open()
        defer { LoopbackSocket.close(fd) }
        LoopbackSocket.bind(fd, port: 0)
        return LoopbackSocket.localPort(fd)
    }

    /// Whether something accepts a connection on `port` now.
    public static func accepts(_ port: Int) -> Bool {
        let fd = LoopbackSocket.open()
        defer { LoopbackSocket.close(fd) }
        return LoopbackSocket.connect(fd, port: port)
    }

    /// Waits until `process` accepts connections on `port`; false when it exits first or 20 s pass
    /// (a loaded CI machine starts a process slowly).
    public static func waitUntilListening(_ port: Int, process: Process, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if accepts(port) { return true }
            guard process.isRunning else { return false }
            usleep(20_000)
        }
        return false
    }

    /// Starts `process` (a server given `--listen 127.0.0.1:0`) with its standard error written to
    /// a new file at `log`, and returns the port it announces there (`announced(by:log:)`).
    public static func launch(_ process: Process, log: String) throws -> Int {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        guard let port = announced(by: process, log: log) else { throw CocoaError(.executableLoad) }
        return port
    }

    /// Waits until a server started with `--listen 127.0.0.1:0`, its standard error going to the
    /// file at `log`, says there which port the kernel gave it —
    /// `{"listening":"http://127.0.0.1:PORT",…}` — and returns the port. A port the server chose
    /// itself cannot be taken by another process between a test picking it and the server binding
    /// it, as one from `free()` can while other suites run. A file rather than a pipe: nobody has
    /// to keep reading it, so a busy server's log never fills a pipe and blocks it. Nil when the
    /// process exits first or 20 s pass.
    public static func announced(by process: Process, log: String, seconds: Double = 20) -> Int? {
        let deadline = Date().addingTimeInterval(seconds)
        let marker = Array("\"listening\":\"http://127.0.0.1:".utf8)
        while Date() < deadline {
            let written = (FileManager.default.contents(atPath: log)).map(Array.init) ?? []
            if let start = written.firstRange(of: marker)?.upperBound {
                let digits = written[start...].prefix { $0 >= 0x30 && $0 <= 0x39 }
                if start + digits.count < written.count, let port = Int(String(decoding: digits, as: UTF8.self)) { return port }
            }
            guard process.isRunning else { return nil }
            usleep(20_000)
        }
        return nil
    }
}
