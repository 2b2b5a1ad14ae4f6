import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The service away, through the real binaries: a refused connection and a black-holed address
/// are each said in one sentence at once (no silent retrying), `push` and `sync` exit non-zero,
/// and an answer from a stale mirror comes straight from the mirror, saying how old it is. The
/// waits are printed; the figures go in the notes, never in a condition here.
@Suite(.serialized) struct ServiceAwayTests {
    @Test func everyCommandSaysAtOnceThatTheServiceIsAway() throws {
        let work = NSTemporaryDirectory() + "efferent-away-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (writer, reader, server) = try CommandRunner.syncedReader(work)
        try Self.ageMirror(reader.home)

        // Refused: the service stopped.
        kill(server.process.processIdentifier, SIGTERM)
        server.process.waitUntilExit()
        try Self.expectAway(writer: writer, reader: reader, sentence: "nothing accepts connections there (connection refused)")

        // Black-holed: connections that are never accepted (a listener whose queue is full).
        let hole = try BlackHole()
        for home in [writer.home, reader.home] { try Self.point(home, from: server.url, to: "http://127.0.0.1:\(hole.port)") }
        try Self.expectAway(writer: writer, reader: reader, sentence: "no connection within 2.5 s")
    }

    static func expectAway(writer: CommandRunner, reader: CommandRunner, sentence: String) throws {
        func timed(_ runner: CommandRunner, _ arguments: [String]) throws -> (CommandRunner.Result, Double) {
            let started = Date()
            let result = try runner.run(arguments)
            return (result, Date().timeIntervalSince(started))
        }
        for (runner, arguments) in [(reader, ["sync"]), (writer, ["push"]), (reader, ["ask", "--metric", "heartRate", "--since", "2024-01-01", "--until", "2024-01-01"])] {
            let (result, seconds) = try timed(runner, arguments)
            print("service away (\(sentence)): efferent \(arguments[0]) exited \(result.status) after \(String(format: "%.2f", seconds)) s")
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: Cannot reach the archive service at http://127.0.0.1:"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(sentence), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("trying again"), "nothing to retry when no connection stands: \(result.stderr)")
        }
        for runner in [writer, reader] {
            let (status, seconds) = try timed(runner, ["status"])
            print("service away (\(sentence)): efferent status after \(String(format: "%.2f", seconds)) s")
            #expect(status.status == 0 && status.stdout.contains("archive  not reachable just now: Cannot reach") && status.stdout.contains(sentence))
        }
        // A stale mirror answers from itself, saying how old it is.
        let (answer, seconds) = try timed(reader, ["samples", "--metric", "heartRate", "--since", "2024-01-01", "--until", "2024-01-01", "--format", "csv"])
        print("service away (\(sentence)): an answer from a stale mirror after \(String(format: "%.2f", seconds)) s")
        #expect(answer.status == 0 && answer.stdout.split(whereSeparator: \.isNewline).count == 3, "\(answer.stdout) \(answer.stderr)")
        #expect(answer.stderr.hasPrefix("answering from the mirror as synced "), "\(answer.stderr)")
        #expect(answer.stderr.contains("days ago — the service did not answer just now"), "\(answer.stderr)")
    }

    /// Makes the mirror look synced long ago, so answers want to refresh it first.
    static func ageMirror(_ home: String) throws {
        let path = home + "/mirror.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let aged = text.replacingOccurrences(of: #""syncedAt":"[^"]*""#, with: #""syncedAt":"2020-01-01T00:00:00Z""#, options: .regularExpression)
        try aged.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Points a profile (and its mirror record) at another address.
    static func point(_ home: String, from old: String, to new: String) throws {
        for name in ["profile.json", "mirror.json"] where FileManager.default.fileExists(atPath: home + "/" + name) {
            let text = try String(contentsOfFile: home + "/" + name, encoding: .utf8)
            try text.replacingOccurrences(of: old, with: new).write(toFile: home + "/" + name, atomically: true, encoding: .utf8)
        }
    }
}
