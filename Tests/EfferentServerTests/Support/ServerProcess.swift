import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `efferent-server` binary, started on a loopback port over a data directory, for the
/// tests that need a whole process: restarts, SIGTERM, backups.
final class ServerProcess {
    let process = Process()
    let port: Int
    let stderr = Pipe()

    /// The built products folder: the test bundle sits beside the executables.
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static var binary: URL {
        var url = productsDirectory
        while url.path != "/" {
            let candidate = url.appendingPathComponent("efferent-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            url = url.deletingLastPathComponent()
        }
        return productsDirectory.appendingPathComponent("efferent-server")
    }

    convenience init(data: String, arguments: [String] = ["--admission", "open", "--rate-limits", "off"]) throws {
        try self.init(store: ["--data", data], arguments: arguments)
    }

    /// `store` is `--data DIR` or `--postgres URL`.
    init(store: [String], arguments: [String] = ["--admission", "open", "--rate-limits", "off"]) throws {
        port = ServerProcess.freePort()
        process.executableURL = ServerProcess.binary
        process.arguments = ["serve"] + store + ["--listen", "127.0.0.1:\(port)"] + arguments
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if (try? RawProbe.health(port: port)) == true { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        throw CocoaError(.executableLoad)
    }

    /// Runs one `efferent-server` command to its end: its exit status and what it printed.
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// SIGTERM, then wait for the exit; returns the exit status.
    @discardableResult
    func terminate() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var log: String { String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self) }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }

    /// A port nobody listens on right now (bound to 0, read back, released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

enum RawProbe {
    static func health(port: Int) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        return rc == 0
    }
}
