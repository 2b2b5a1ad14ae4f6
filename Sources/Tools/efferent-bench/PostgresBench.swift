import EfferentCompression
import EfferentPostgres
import EfferentCore
import Foundation

/// Issue 8's figures: range answers and month frames stored per second by one and by two
/// `efferent-server` processes sharing one PostgreSQL, next to one process on SQLite, all in the
/// same run on the same data. The load is two wrk instances at once, each holding half the
/// connections, aimed at one process or split between two (what a load balancer does).
///
/// On a machine of few cores the database, the processes and wrk share them all, so a second
/// process finds no idle core to use. The same pair is therefore measured twice more with each
/// service process capped by a cgroup at a fraction of a core, as if each ran on a small machine
/// of its own: that shows whether the store itself lets processes add up.
enum PostgresBench {
    struct Setup {
        let name: String
        let processes: Int
        let postgres: Bool
        var cap: Double? = nil
    }

    static let cap = 0.3

    struct Figures {
        var range: Wrk.Combined
        var frames: Wrk.Combined
        /// CPU microseconds per range answer: the service processes, PostgreSQL, everything else
        /// (wrk, the kernel's loopback); and how busy both cores were.
        var serviceMicros: Double
        var postgresMicros: Double
        var otherMicros: Double
        var utilisation: Double
    }

    static func run() throws {
        guard let cluster = ProcessInfo.processInfo.environment["EFFERENT_BENCH_POSTGRES_URL"] else {
            throw BenchError("no PostgreSQL to measure: scripts/bench postgres starts one and names it in EFFERENT_BENCH_POSTGRES_URL")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else { throw BenchError("wrk is not installed (scripts/bench installs it)") }
        let work = NSTemporaryDirectory() + "efferent-bench-pg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        // The archive every setup serves: the synthetic decade, sealed once.
        let decade = SyntheticDecade.days()
        let owner = BenchWriter()
        let deflater = try Deflater()
        let sealed = try decade.map { day, events in
            Frame.Day(day: day, sealed: try SealedEnvelope.seal(try DayBody(events: events, timeZone: "Europe/Berlin").deflated(using: deflater),
                                                                to: owner.reading.publicKey, aad: .day(bucket: owner.bucket.rawValue, day: day)))
        }
        let rangePath = "/b/\(owner.bucket)/d?from=\(decade[400].0)&to=\(decade[491].0)"
        let writers = (0..<4).map { _ in BenchWriter() }

        let setups = [Setup(name: "SQLite ×1", processes: 1, postgres: false),
                      Setup(name: "PostgreSQL ×1", processes: 1, postgres: true),
                      Setup(name: "PostgreSQL ×2", processes: 2, postgres: true),
                      Setup(name: "PostgreSQL ×1 at \(cap) core", processes: 1, postgres: true, cap: cap),
                      Setup(name: "PostgreSQL ×2 at \(cap) core each", processes: 2, postgres: true, cap: cap)]
        var results = [(setup: Setup, figures: Figures)]()
        for (index, setup) in setups.enumerated() {
            let store: [String]
            if setup.postgres {
                let schema = "bench_\(index)_\(UInt32.random(in: 0...UInt32.max))"
                try PostgresConnection(url: cluster).execute("CREATE SCHEMA \(schema)")
                store = ["--postgres", cluster + (cluster.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)",
                         "--postgres-connections", "16"]
            } else {
                store = ["--data", "\(work)/sqlite-\(index)"]
            }
            let servers = try (0..<setup.processes).map { _ in try BenchServer(store: store) }
            var caps = [CPUCap]()
            defer {
                servers.forEach { $0.stop() }
                caps.forEach { $0.remove() }
            }
            if let cores = setup.cap {
                for (number, server) in servers.enumerated() {
                    guard let cap = CPUCap(pid: server.process.processIdentifier, cores: cores, name: "efferent-bench-\(getpid())-\(index)-\(number)") else {
                        FileHandle.standardError.write(Data("skipping \(setup.name): capping a process needs root and a writable cgroup cpu controller\n".utf8))
                        break
                    }
                    caps.append(cap)
                }
                guard caps.count == servers.count else { continue }
            }
            let ports = servers.map(\.port)

            try owner.claim(ports[0])
            for frame in stride(from: 0, to: sealed.count, by: 31).map({ Array(sealed[$0..<min($0 + 31, sealed.count)]) }) {
                _ = try owner.upload(frame, port: ports[0])
            }
            let answer = try owner.get(rangePath, port: ports[ports.count - 1])
            guard try Frame.unpack(answer, allowingEmpty: true).count == 92 else { throw BenchError("the range answer did not hold 92 days") }

            // 32 readers in two groups of 16; with two processes each group has its own.
            let before = CPUTime.now()
            let range = try Wrk.together((0..<2).map { group in
                Wrk.Job(url: "http://127.0.0.1:\(ports[group % ports.count])\(rangePath)", threads: 1, connections: 16, script: nil)
            })
            let cpu = CPUTime.since(before)
            let answers = range.requestsPerSecond * 5
            let service = cpu.byName["efferent-server"] ?? 0, postgres = cpu.byName["postgres"] ?? 0

            // 4 writers re-storing a month frame each into their own archive, two per wrk instance.
            var jobs = [Wrk.Job]()
            for group in 0..<2 {
                let directory = "\(work)/writers-\(index)-\(group)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                var scripts = [String]()
                for slot in 0..<2 {
                    let number = group * 2 + slot
                    try writers[number].claim(ports[group % ports.count])
                    scripts.append(try writers[number].wrkRequest(Array(sealed[(number * 31)..<(number * 31 + 31)]), directory: directory, index: number))
                }
                jobs.append(Wrk.Job(url: "http://127.0.0.1:\(ports[group % ports.count])/", threads: 2, connections: 2,
                                    script: try Wrk.perThreadScript(scripts, directory: directory)))
            }
            let frames = try Wrk.together(jobs)
            if range.non2xx + frames.non2xx > 0 { throw BenchError("\(setup.name) refused \(range.non2xx + frames.non2xx) requests under load") }
            results.append((setup, Figures(range: range, frames: frames, serviceMicros: service / answers * 1e6,
                                   postgresMicros: postgres / answers * 1e6, otherMicros: (cpu.busy - service - postgres) / answers * 1e6,
                                   utilisation: cpu.utilisation)))
        }

        Measure.header("Service on PostgreSQL: efferent-server (release) processes sharing one PostgreSQL 15 on loopback "
                       + "(fsync on, synchronous_commit off, like SQLite's WAL with synchronous=NORMAL); 2 cores shared by everything")
        let figures = Dictionary(uniqueKeysWithValues: results.map { ($0.setup.name, $0.figures) })
        // One section per figure: SQLite, PostgreSQL ×1 next to it, then each pair of PostgreSQL
        // setups (uncapped, capped) with the second as a ratio of the first.
        func section(_ title: String, _ value: (Figures) -> Double, unit: String, goal: String) {
            guard let sqlite = figures[setups[0].name] else { return }
            Measure.row("\(title): \(setups[0].name)", Measure.format(value(sqlite), unit, digits: 0), "", ratio: nil, goal: "")
            for (single, double) in [(setups[1], setups[2]), (setups[3], setups[4])] {
                guard let first = figures[single.name], let second = figures[double.name] else { continue }
                // The uncapped single process is also compared with SQLite.
                let beside = single.cap == nil
                Measure.row("  \(single.name)", Measure.format(value(first), unit, digits: 0),
                            beside ? "SQLite " + Measure.format(value(sqlite), unit, digits: 0) : "",
                            ratio: beside ? value(first) / value(sqlite) : nil, goal: "")
                Measure.row("  \(double.name)", Measure.format(value(second), unit, digits: 0), "×1 " + Measure.format(value(first), unit, digits: 0),
                            ratio: value(second) / value(first), goal: goal)
            }
        }
        section("range answers (92 days), 32 readers", \.range.requestsPerSecond, unit: "req/s", goal: "≥ 1.6×")
        for (setup, figures) in results {
            Measure.row("  p99, CPU/answer: \(setup.name)",
                        String(format: "%.1f ms / %.0f µs", figures.range.p99Milliseconds, figures.serviceMicros + figures.postgresMicros + figures.otherMicros),
                        String(format: "service %.0f, PostgreSQL %.0f, wrk+kernel %.0f µs; cores %.0f%% busy",
                               figures.serviceMicros, figures.postgresMicros, figures.otherMicros, figures.utilisation * 100),
                        ratio: nil, goal: "")
        }
        section("month frames stored, 4 writers", \.frames.requestsPerSecond, unit: "frames/s", goal: "")
    }
}
