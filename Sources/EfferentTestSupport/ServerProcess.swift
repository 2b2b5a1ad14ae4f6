import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `efferent-server` binary, started on a loopback port over a data directory, for the
/// tests that need a whole process: restarts, SIGTERM, backups, the command line end to end. It
/// listens on port 0 and the port is read from its `listening` line. Its deinit stops it and waits
/// for it to exit.
public final class ServerProcess {
    public let process = Process()
    public let port: Int
    /// Where the process writes its standard error (its log), removed with the object.
    public let logFile = NSTemporaryDirectory() + "efferent-server-\(UUID().uuidString).log"

    /// The built products folder: the test bundle sits beside the executables.
    public static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    public static var binary: URL {
        var url = productsDirectory
        while url.path != "/" {
            let candidate = url.appendingPathComponent("efferent-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            url = url.deletingLastPathComponent()
        }
        return productsDirectory.appendingPathComponent("efferent-server")
    }

    /// The default arguments open the service, turn rate limits off and let one address hold 256
    /// connections: the multi-process tests send up to 80 requests at once from loopback.
    public static let testArguments = ["--admission", "open", "--rate-limits", "off", "--connections-per-address", "256"]

    public convenience init(data: String, arguments: [String] = ServerProcess.testArguments) throws {
        try self.init(store: ["--data", data], arguments: arguments)
    }

    /// `store` is `--data DIR` or `--postgres URL`.
    public init(store: [String], arguments: [String] = ServerProcess.testArguments) throws {
        process.executableURL = ServerProcess.binary
        process.arguments = ["serve"] + store + ["--listen", "127.0.0.1:0"] + arguments
        process.standardOutput = FileHandle.nullDevice
        port = try LoopbackPort.launch(process, log: logFile)
    }

    /// Runs one `efferent-server` command to its end: its exit status and what it printed.
    /// Standard input is `input` when given, otherwise empty (never the test runner's terminal).
    /// `environment` is added to the test runner's.
    public static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        inPipe.fileHandleForWriting.write(Data((input ?? "").utf8))
        try? inPipe.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// SIGTERM, then wait for the exit; returns the exit status.
    @discardableResult
    public func terminate() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Where a client reaches it.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Everything the process has written to standard error so far.
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(atPath: logFile)
    }
}
