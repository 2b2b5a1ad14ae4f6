import EfferentCore
import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `efferent dashboard` and `efferent plot` through the real binary: the dashboard stays on
/// loopback unless told otherwise (and then warns), prints an address with its token, serves the
/// mirror and stops on SIGTERM; plot draws with the shared renderer (issue 17 item 11).
@Suite(.serialized) struct DashboardCommandTests {
    @Test func anAddressOthersCanReachNeedsToBeAskedFor() throws {
        let refused = try CommandRunner(home: NSTemporaryDirectory() + "efferent-none-" + UUID().uuidString).run(["dashboard", "--listen", "0.0.0.0:0"])
        #expect(refused.status == 64 && refused.stderr.contains("--allow-remote") && refused.stderr.contains("beyond this machine"), "\(refused.stderr)")
        let help = try CommandRunner(home: "/nonexistent").run(["dashboard", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--listen ADDR:PORT") && help.stdout.contains("127.0.0.1:8765"))
    }

    @Test func itPrintsItsAddressServesTheMirrorAndStopsOnSigterm() throws {
        let work = NSTemporaryDirectory() + "efferent-dash-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (_, reader, service) = try CommandRunner.syncedReader(work)
        defer { withExtendedLifetime(service) {} }
        for (arguments, warned) in [(["--listen", "127.0.0.1:0", "--offline"], false), (["--listen", "0.0.0.0:0", "--allow-remote", "--offline"], true)] {
            let process = Process()
            process.executableURL = CommandRunner.products.appendingPathComponent("efferent")
            process.arguments = ["dashboard"] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["EFFERENT_HOME": reader.home]) { _, new in new }
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let address = try #require(PrintedAddress.read(from: out.fileHandleForReading))
            let (port, token) = (address.port, address.token)
            let connection = try RawHTTPConnection(port: port)
            let answer = try connection.exchange("GET /api/v1/pages/catalogue HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 200 && answer.body.contains("\"metric\":\"heartRate\""), "\(answer.status) \(answer.body.prefix(200))")
            #expect(try RawHTTPConnection(port: port).exchange("GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n").status == 401)
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(stderr.contains("warning: the dashboard listens on 0.0.0.0") == warned, "\(stderr)")
        }
    }

    /// `--token-file` keeps the token from run to run (an agent's `/mcp` setting stays valid): made
    /// owner-only when missing, read back the next time; a file that holds no token is refused.
    @Test func aTokenFileKeepsTheTokenFromRunToRun() throws {
        let work = NSTemporaryDirectory() + "efferent-dash-token-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (_, reader, service) = try CommandRunner.syncedReader(work)
        defer { withExtendedLifetime(service) {} }
        let file = work + "/dashboard-token"
        func started() throws -> (token: String, lines: String) {
            let process = Process()
            process.executableURL = CommandRunner.products.appendingPathComponent("efferent")
            process.arguments = ["dashboard", "--listen", "127.0.0.1:0", "--offline", "--token-file", file]
            process.environment = ProcessInfo.processInfo.environment.merging(["EFFERENT_HOME": reader.home]) { _, new in new }
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            let address = try #require(PrintedAddress.read(from: out.fileHandleForReading))
            // Answered once before the stop, as a person's first page would be: a SIGTERM sent the
            // instant the address is printed can come before the signal's handler is in place
            // (noted in design.md), and the dashboard would never stop.
            let status = try RawHTTPConnection(port: address.port).exchange(
                "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:\(address.port)\r\nAuthorization: Bearer \(address.token)\r\nConnection: close\r\n\r\n")
            #expect(status.status == 200)
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            let rest = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (address.token, address.printed + rest)
        }
        let first = try started(), second = try started()
        #expect(first.token == second.token && first.token.count >= 32)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == first.token + "\n")
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        #expect(first.lines.contains("Agents: MCP at http://127.0.0.1:") && first.lines.contains("/mcp, with the header Authorization: Bearer"),
                "\(first.lines)")
        try "not a token\n".write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try reader.run(["dashboard", "--listen", "127.0.0.1:0", "--offline", "--token-file", file])
        #expect(refused.status != 0 && refused.stderr.contains("does not hold a dashboard token"), "\(refused.stderr)")
    }

    /// Issue 17 item 11 through the binary: round ticks with the unit, local dates, an empty
    /// range drawn as such, sleep stages in their own colours with a legend.
    @Test func plotDrawsWithTheSharedRenderer() throws {
        let work = NSTemporaryDirectory() + "efferent-plot-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (_, reader, service) = try CommandRunner.syncedReader(work)
        defer { withExtendedLifetime(service) {} }
        func plot(_ arguments: [String]) throws -> String {
            let file = work + "/chart-\(UUID().uuidString).svg"
            let result = try reader.run(["plot"] + arguments + ["--offline", "--out", file])
            #expect(result.status == 0, "\(result.stderr)")
            return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
        let energy = try plot(["daily", "--metric", "activeEnergy", "--since", "2023-12-29", "--until", "2024-01-04"])
        #expect(energy.contains("class=\"c-bar\"") && energy.contains(" kcal</text>") && energy.contains(">Mon 1</text>"), "\(energy.prefix(400))")
        #expect(energy.contains("Active energy · 29 Dec 2023 – 4 Jan 2024"))
        let empty = try plot(["daily", "--metric", "activeEnergy", "--since", "2023-06-01", "--until", "2023-06-07"])
        #expect(empty.contains(">No data in this range</text>") && !empty.contains("class=\"c-bar\""))
        let sleep = try plot(["sleep", "--since", "2023-12-31", "--until", "2024-01-01"])
        #expect(sleep.contains("class=\"st-asleepCore\"") && sleep.contains("class=\"c-legend\"") && sleep.contains(">Core</text>"))
        let readings = try plot(["samples", "--metric", "heartRate", "--since", "2024-01-01", "--until", "2024-01-01"])
        #expect(readings.contains("class=\"chart chart-band\"") && readings.contains(" bpm</text>"))
        let unknown = try reader.run(["plot", "daily", "--metric", "stepz", "--offline", "--out", work + "/x.svg"])
        #expect(unknown.status == 64 && unknown.stderr.contains("stepz is not a metric name (the closest is steps)"), "\(unknown.stderr)")
        let loose = try reader.run(["plot", "daily", "--metric", "ActiveEnergy", "--since", "2023-12-29", "--until", "2024-01-04", "--offline",
                                    "--out", work + "/loose.svg"])
        #expect(loose.status == 0 && loose.stderr.contains("ActiveEnergy read as activeEnergy"), "\(loose.stderr)")
    }
}
