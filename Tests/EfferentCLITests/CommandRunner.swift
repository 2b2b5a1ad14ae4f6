import EfferentTestSupport
import EfferentSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `efferent` and `efferent-server` binaries as a person would, with their own
/// EFFERENT_HOME, capturing output and exit status.
struct CommandRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var products: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("efferent").path) { return url }
            url = url.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    let home: String

    func run(_ arguments: [String], tool: String = "efferent", stdin: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = Self.products.appendingPathComponent(tool)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        environment["EFFERENT_RETRY_DELAYS"] = "0,0"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                      stderr: String(decoding: error, as: UTF8.self))
    }
}

extension CommandRunner {
    /// A reader profile in `work/laptop` synced from a service (in `work/service`, open admission)
    /// that holds the small real sample export, pushed by a writer in `work/phone`.
    static func syncedReader(_ work: String) throws -> (writer: CommandRunner, reader: CommandRunner, server: ServerProcess) {
        let server = try ServerProcess(data: work + "/service", arguments: ["--admission", "open"])
        let writer = CommandRunner(home: work + "/phone"), reader = CommandRunner(home: work + "/laptop")
        for (runner, arguments) in [(writer, ["init", "--server", server.url, "--time-zone", "Europe/Amsterdam"]),
                                    (writer, ["import", WholeLoopTests.samples.appendingPathComponent("apple-health-parser/export.zip").path]),
                                    (writer, ["push"])] {
            let result = try runner.run(arguments)
            guard result.status == 0 else { throw SetupFailure(step: arguments[0], stderr: result.stderr) }
        }
        let handoff = work + "/handoff.txt"
        try writer.run(["handoff"]).stdout.write(toFile: handoff, atomically: true, encoding: .utf8)
        try? FileMode.set(0o600, on: handoff)
        for arguments in [["connect", "--handoff", handoff], ["sync"]] {
            let result = try reader.run(arguments)
            guard result.status == 0 else { throw SetupFailure(step: arguments[0], stderr: result.stderr) }
        }
        return (writer, reader, server)
    }

    struct SetupFailure: Error, CustomStringConvertible {
        let step: String
        let stderr: String
        var description: String { "efferent \(step) failed while setting up: \(stderr)" }
    }
}

extension CommandRunner {
    /// Runs `efferent` and returns its own peak RSS with its exit status and standard output. The
    /// peak is the child's `VmHWM`, polled while it runs: `wait4`'s figure would include the test
    /// process's own memory, which a spawned child's accounting inherits on Linux.
    func runMeasured(_ arguments: [String]) throws -> (status: Int32, stdout: String, peakKiB: Int) {
        let output = NSTemporaryDirectory() + "efferent-out-" + UUID().uuidString
        defer { FileDurability.remove(output) }
        let path = Self.products.appendingPathComponent("efferent").path
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        let pid = try ChildProcess.spawn(path, arguments: arguments, environment: environment, output: output)
        var peak = 0
        var exited = ChildProcess.exitStatus(pid)
        while exited == nil {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kib = Int(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, kib)
            }
            usleep(5_000)
            exited = ChildProcess.exitStatus(pid)
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (exited ?? 0, text, peak)
    }
}
