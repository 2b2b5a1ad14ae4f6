import EfferentTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `efferent receive` as a person runs it, on a loopback port, for its own EFFERENT_HOME; its log
/// (standard error) goes to a file the test reads.
final class RunningReceiver {
    let process = Process()
    let port: Int
    let logFile: String

    /// Without a port the receiver binds port 0 and the port it got is read from its `listening`
    /// line, so no other process can take it between a probe and the bind; a restart passes the
    /// port it had.
    init(home: String, port: Int? = nil, arguments: [String] = ["--debounce", "0.5"]) throws {
        logFile = home + "-receive-\(UUID().uuidString.prefix(8)).log"
        process.executableURL = CommandRunner.products.appendingPathComponent("efferent")
        process.arguments = ["receive", "--listen", "127.0.0.1:\(port ?? 0)"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        environment["EFFERENT_RETRY_DELAYS"] = "0,0"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        let announced = try LoopbackPort.launch(process, log: logFile)
        if let port, announced != port { throw CocoaError(.executableLoad) }
        self.port = announced
    }

    var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// SIGKILL: no goodbye, no flush, no finishing the request in flight.
    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then the exit status.
    @discardableResult
    func terminate() -> Int32 {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: logFile)
    }
}

/// A writer profile paired with a phone, as `efferent init` and `efferent receive pair` leave it.
struct PairedWriter {
    let runner: CommandRunner
    let token: String
    let user: String
    let pairing: String

    init(home: String, server: ServerProcess, name: String = "Anna's iPhone", zone: String = "UTC") throws {
        runner = CommandRunner(home: home)
        let initialised = try runner.run(["init", "--server", server.url, "--time-zone", zone])
        guard initialised.status == 0 else { throw CocoaError(.featureUnsupported) }
        let printed = try runner.run(["receive", "pair", "--url", "https://health.example.net/puls", "--name", name]).stdout
        pairing = printed
        func field(_ label: String) -> String {
            printed.split(separator: "\n").first { $0.hasPrefix("  \(label) ") }.map { String($0.dropFirst(label.count + 3)).trimmingCharacters(in: .whitespaces) } ?? ""
        }
        token = field("token")
        user = field("user ID")
    }
}

/// The Puls Sync Protocol v1 corpus (Tests/Fixtures/puls-sync-v1, Apache-2.0, from
/// PulsHealth/pulshealth docs/protocol/fixtures), with each batch's expected answer.
enum PulsFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/puls-sync-v1/fixtures")

    static var all: [(name: String, ndjson: String, counts: [Int])] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".ndjson") }.sorted()
        return names.map { name in
            let base = String(name.dropLast(".ndjson".count))
            let ndjson = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
            let expected = (try? Data(contentsOf: folder.appendingPathComponent(base + ".expected.json"))).flatMap {
                try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
            }
            let response = expected?["response"] as? [String: Int] ?? [:]
            return (base, ndjson, counts.map { response[$0] ?? -1 })
        }
    }

    static let counts = ["accepted", "deleted", "duplicates", "routePoints", "seriesPoints", "aggregateSamples", "activitySummaries"]

    static func counts(_ answer: PulsPhone.Answer) -> [Int] { counts.map { answer.count($0) } }
}
