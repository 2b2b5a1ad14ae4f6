import EfferentCore
import EfferentTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 16: `efferent dashboard` on a decade mirror (a generated 10-year export through the
/// release binaries). A page is what a browser asks for to draw it — the shell, its script and
/// styles, the status line and the page's API call — each request's server time from its
/// `Server-Timing` header, the page's weight the bytes of every answer. Heart rate over ALL of the
/// decade stands beside `efferent query --metric heartRate` over the same decade.
enum DashboardBench {
    /// A page: the requests a browser makes for it after the shell.
    static let assets = ["/assets/chart.css", "/assets/app.css", "/assets/app.js", "/favicon.svg", "/api/v1/status"]

    static func run(years: Int = 10) async throws {
        let work = NSTemporaryDirectory() + "efferent-dashboard-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (archive, truths, first, last) = try await DecadeArchive.generated(years: years, in: work)
        defer { archive.server.stop() }
        let query = try await Child.median(5) {
            try await Child.run("efferent", ["query", "--metric", "heartRate", "--since", first, "--until", last], home: archive.laptop, quiet: true)
        }

        let dashboard = try DashboardProcess(home: archive.laptop)
        defer { dashboard.stop() }
        // The first page after start waits for the digest of the decade the dashboard builds at once.
        let cold = try dashboard.page("/catalogue", api: "/api/v1/pages/catalogue")
        let metric = "/api/v1/pages/metric/heartRate?range=ALL&until=\(last)&width=1068"
        let today = "/api/v1/pages/today?day=\(last)"
        let heart = try (0..<7).map { _ in try dashboard.page("/metrics/heartRate?range=ALL", api: metric) }.sorted { $0.server < $1.server }[3]
        let home = try (0..<7).map { _ in try dashboard.page("/", api: today) }.sorted { $0.server < $1.server }[3]
        let week = try (0..<7).map { _ in
            try dashboard.page("/metrics/heartRate?range=7D", api: "/api/v1/pages/metric/heartRate?range=7D&until=\(last)&width=1068")
        }.sorted { $0.server < $1.server }[3]
        let sleep = try (0..<3).map { _ in try dashboard.page("/sleep", api: "/api/v1/pages/sleep?range=30D&until=\(last)&width=1068") }
            .sorted { $0.server < $1.server }[1]

        Measure.header("Dashboard: efferent dashboard on a generated \(years)-year mirror (release, loopback; medians)")
        print("  mirror: \(first) … \(last), \(truths["recordCounts"]?["heartRate"]?.integerValue ?? 0) heart-rate readings")
        Measure.row("heart rate, ALL: server time", Measure.format(heart.server * 1000, "ms", digits: 1),
                    "query heartRate " + Measure.format(query.seconds * 1000, "ms", digits: 0), ratio: heart.server / query.seconds, goal: "≤ 150 ms")
        Measure.row("heart rate, ALL: page weight", Measure.format(Double(heart.bytes) / 1024, "KB", digits: 0),
                    "query's \(query.output.isEmpty ? "NDJSON" : "output") not kept", ratio: nil, goal: "≤ 300 KB")
        print("    its API call alone: \(String(format: "%.1f ms", heart.apiServer * 1000)), \(heart.apiBytes / 1024) KB, \(heart.bins) bins; "
              + "wall time of the whole page's \(heart.requests) requests \(String(format: "%.1f ms", heart.wall * 1000))")
        Measure.row("Today: server time", Measure.format(home.server * 1000, "ms", digits: 1),
                    "its API call " + Measure.format(home.apiServer * 1000, "ms", digits: 1), ratio: nil, goal: "≤ 50 ms")
        Measure.row("heart rate, 7D (readings by moment)", Measure.format(week.server * 1000, "ms", digits: 1),
                    Measure.format(Double(week.bytes) / 1024, "KB", digits: 0), ratio: nil, goal: "")
        Measure.row("sleep, 30 nights", Measure.format(sleep.server * 1000, "ms", digits: 1),
                    Measure.format(Double(sleep.bytes) / 1024, "KB", digits: 0), ratio: nil, goal: "")
        Measure.row("first page after start (digest built)", Measure.format(cold.wall * 1000, "ms", digits: 0),
                    "dashboard RSS " + Measure.format(dashboard.peakRSSMiB, "MiB", digits: 0), ratio: nil, goal: "")
    }
}

/// `efferent dashboard --offline` as a child, and pages loaded from it as a browser loads them.
final class DashboardProcess {
    struct Page {
        /// Seconds the dashboard spent answering (the sum of the requests' Server-Timing).
        var server = 0.0
        /// Seconds from the first request sent to the last answer read, one after another.
        var wall = 0.0
        var bytes = 0
        var requests = 0
        var apiServer = 0.0
        var apiBytes = 0
        var apiBody = ""
        var bins = 0
    }

    let process = Process()
    let port: Int
    let token: String

    /// `efferent dashboard` on `home`, from the binaries in `directory` (the bench's own when nil).
    init(home: String, directory: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: directory ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path)
            .appendingPathComponent("efferent")
        process.arguments = ["dashboard", "--listen", "127.0.0.1:0", "--offline"]
        var environment = ProcessInfo.processInfo.environment
        environment["EFFERENT_HOME"] = home
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let address = PrintedAddress.read(from: out.fileHandleForReading) else { throw BenchError("efferent dashboard printed no address") }
        port = address.port
        token = address.token
    }

    /// The shell at `path`, its files and the status line, then `api`.
    func page(_ path: String, api: String) throws -> Page {
        var page = Page()
        let started = DispatchTime.now().uptimeNanoseconds
        for target in [path] + DashboardBench.assets + [api] {
            let connection = try RawHTTPConnection(port: port)
            connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: efferent_dashboard_\(port)=\(token)\r\nConnection: close\r\n\r\n")
            let response = try connection.readResponse()
            guard response.status == 200 else { throw BenchError("GET \(target) answered \(response.status): \(response.body.prefix(200))") }
            let server = (response.headers["server-timing"]?.components(separatedBy: "dur=").last).flatMap(Double.init).map { $0 / 1000 } ?? 0
            page.server += server
            page.bytes += response.body.utf8.count
            page.requests += 1
            if target == api {
                page.apiServer = server
                page.apiBytes = response.body.utf8.count
                page.apiBody = response.body
                page.bins = response.body.components(separatedBy: "\"label\":").count - 1
            }
        }
        page.wall = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return page
    }

    var peakRSSMiB: Double { Measure.peakRSSMiB(of: process.processIdentifier) }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }
}
