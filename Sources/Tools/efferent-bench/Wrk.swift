import Foundation
import EfferentSystem

/// Runs wrk (Debian's package) against a URL for a few seconds and reads its summary.
struct Wrk {
    let requestsPerSecond: Double
    let bytesPerSecond: Double
    let p99Milliseconds: Double
    let non2xx: Int
    /// Answers completed in the run.
    let requests: Int

    /// `headers` go on every request (a signed read's three).
    static func run(url: String, threads: Int, connections: Int, seconds: Int = 5, script: String? = nil,
                    headers: [(name: String, value: String)] = []) throws -> Wrk {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency"] + (script.map { ["-s", $0] } ?? [])
            + headers.flatMap { ["-H", "\($0.name): \($0.value)"] } + [url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        func number(after label: String) -> Double? {
            guard let line = text.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Self.quantity(String($0)) }
        }
        guard let rps = number(after: "Requests/sec:"), let transfer = number(after: "Transfer/sec:"),
              let p99 = number(after: "99%") else { throw BenchError("could not read wrk's output:\n\(text)") }
        let non2xx = text.split(separator: "\n").first { $0.contains("Non-2xx") }?.split(separator: " ").last.flatMap { Int($0) } ?? 0
        // "  12345 requests in 5.00s, 1.50GB read"
        let requests = text.split(separator: "\n").first { $0.contains(" requests in ") }?
            .split(separator: " ").first.flatMap { Int($0) } ?? 0
        return Wrk(requestsPerSecond: rps, bytesPerSecond: transfer, p99Milliseconds: p99 * 1000, non2xx: non2xx, requests: requests)
    }

    struct Job: Sendable {
        let url: String
        let threads: Int
        let connections: Int
        let script: String?
    }

    /// Several wrk instances run at the same time, their rates added up.
    struct Combined {
        var requestsPerSecond = 0.0
        var bytesPerSecond = 0.0
        var p99Milliseconds = 0.0
        var non2xx = 0
    }

    static func together(_ jobs: [Job], seconds: Int = 5) throws -> Combined {
        let results = Mutex<[Result<Wrk, Error>]>([])
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let job = jobs[index]
            let result = Result { try run(url: job.url, threads: job.threads, connections: job.connections, seconds: seconds, script: job.script) }
            results.withLock { $0.append(result) }
        }
        var combined = Combined()
        for result in results.withLock({ $0 }) {
            let one = try result.get()
            combined.requestsPerSecond += one.requestsPerSecond
            combined.bytesPerSecond += one.bytesPerSecond
            combined.p99Milliseconds = max(combined.p99Milliseconds, one.p99Milliseconds)
            combined.non2xx += one.non2xx
        }
        return combined
    }

    /// `12.5MB` → bytes, `4.20ms` → seconds, `1234.5` → itself.
    static func quantity(_ text: String) -> Double? {
        let units: [(String, Double)] = [("GB", 1_073_741_824), ("MB", 1_048_576), ("KB", 1024), ("B", 1), ("us", 1e-6), ("ms", 1e-3), ("s", 1)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return Double(text)
    }

    /// A wrk script in which thread i replays request i (one writer per thread).
    static func perThreadScript(_ requests: [String], directory: String) throws -> String {
        let path = directory + "/writers.lua"
        let script = """
        local requests = {\(requests.joined(separator: ","))}
        local counter = 0
        function setup(thread) counter = counter + 1; thread:set("index", counter) end
        function init(args)
          local r = requests[index]
          local f = io.open(r.body, "rb"); local body = f:read("*a"); f:close()
          r.headers["Content-Type"] = "application/octet-stream"
          request_text = wrk.format("PUT", r.path, r.headers, body)
        end
        function request() return request_text end
        """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
