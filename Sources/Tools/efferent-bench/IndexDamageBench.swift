import EfferentClient
import EfferentCore
import EfferentCrypto
import EfferentTestSupport
@_spi(Fuzzing) import EfferentReader
import Foundation

/// `scripts/bench index` (issue 45): a decade's `index.bin` damaged over and over — random
/// single-byte flips and truncations anywhere — each time read by a fresh reader process whose
/// every answer must equal, byte for byte, the answers of a reader that had no index at all, with
/// the damage said on the way. Counts wrong answers, crashes (a child that exits other than 0) and
/// silent repairs, and compares each damaged run's peak RSS with clean runs' measured in the same
/// run. `EFFERENT_BENCH_INDEX_FLIPS` and `EFFERENT_BENCH_INDEX_CUTS` set how many (10,000 and
/// 1,000 by default: the figure, a few hours on two cores); not part of `scripts/bench`
/// with no argument.
enum IndexDamageBench {
    /// What each child answers: every kind over the decade or a page of it, as the dashboard asks.
    static func requests(first: CalendarDay, last: CalendarDay) -> [AnswerRequest] {
        let year = last.adding(days: -364)
        return [
            AnswerRequest(kind: .overview),
            AnswerRequest(kind: .overview, since: year, until: last),
            AnswerRequest(kind: .daily, since: year, until: last, metrics: ["steps", "heartRate", "bodyMass", "activeEnergy"]),
            AnswerRequest(kind: .statistics, since: first, until: last, metric: "heartRate", groupBy: "month"),
            AnswerRequest(kind: .statistics, since: year, until: last, metric: "steps", groupBy: "week"),
            AnswerRequest(kind: .sleep, since: year, until: last),
            AnswerRequest(kind: .workouts, since: first, until: last),
            AnswerRequest(kind: .samples, since: first, until: last, metric: "heartRate", limit: 50),
        ]
    }

    static let first = SyntheticDecade.start
    static let days = 3650
    static var last: CalendarDay { first.adding(days: days - 1) }

    /// The child: every answer over the mirror at `directory`, as the SHA-256 of their JSON in
    /// order, then "said" or "silent" (whether the reader named damage to its index).
    static func child(_ directory: String) {
        do {
            let mirror = try Mirror(profile: Profile(directory: directory), endpoint: endpoint)
            let source = MirrorSource(mirror: mirror)
            var all = [UInt8]()
            for request in requests(first: first, last: last) {
                do {
                    all += try request.answer(from: source, today: last, pageDays: AnswerScope.pageDays).answer.jsonBytes { _ in }
                } catch {
                    all += Array("refused: \(error)".utf8)
                }
                all.append(0x0A)
            }
            let hex = Sodium.sha256(all).map { String(format: "%02x", $0) }.joined()
            print(hex + " " + (mirror.takeIndexNotice() == nil ? "silent" : "said"))
        } catch {
            print("failed: \(error)")
            exit(2)
        }
    }

    static let endpoint = "http://127.0.0.1:9/bench"

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let flips = environment["EFFERENT_BENCH_INDEX_FLIPS"].flatMap(Int.init) ?? 10_000
        let cuts = environment["EFFERENT_BENCH_INDEX_CUTS"].flatMap(Int.init) ?? 1_000
        let work = NSTemporaryDirectory() + "efferent-bench-index-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        let mirrorPath = work + "/mirror", indexPath = mirrorPath + "/index.bin"
        let started = Date()
        let bodies = SyntheticDecade.days(count: days).map { day, events in (day, DayBody(events: events, timeZone: "Europe/Berlin").bytes) }
        _ = try IndexFileFuzzing.makeMirror(at: mirrorPath, endpoint: endpoint, days: bodies)
        let clean = Array(try Data(contentsOf: URL(fileURLWithPath: indexPath)))

        // The reference: a reader with no index at all (it reads every day from its file).
        try FileManager.default.removeItem(atPath: indexPath)
        let fresh = try await answers(mirrorPath)
        let reference = fresh.output.split(separator: " ").first.map(String.init) ?? ""
        guard fresh.output.hasSuffix("silent"), reference.count == 64 else { throw BenchError("the fresh reader did not answer: \(fresh.output)") }
        // Clean runs, interleaved with the damaged ones so both see the same load.
        var cleanRuns = [Child]()
        func cleanRun() async throws {
            try Data(clean).write(to: URL(fileURLWithPath: indexPath))
            let run = try await answers(mirrorPath)
            guard run.output == reference + " silent" else { throw BenchError("a clean index answered otherwise: \(run.output)") }
            cleanRuns.append(run)
        }
        try await cleanRun()

        var random = SplitMix64(seed: 4545)
        var wrong = 0, crashed = 0, silent = 0, damagedRuns = [Child](), examples = [String]()
        func damaged(_ bytes: [UInt8], _ what: String) async throws {
            try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
            do {
                let run = try await answers(mirrorPath)
                damagedRuns.append(run)
                if !run.output.hasPrefix(reference) {
                    wrong += 1
                    if examples.count < 5 { examples.append(what + ": " + run.output) }
                } else if bytes != clean, !run.output.hasSuffix("said") {
                    silent += 1
                    if examples.count < 5 { examples.append(what + ": repaired without a word") }
                }
            } catch {
                crashed += 1
                if examples.count < 5 { examples.append(what + ": \(error)") }
            }
        }
        let total = flips + cuts
        for step in 0..<total {
            if step % 100 == 0 { try await cleanRun() }
            if step < flips {
                var bytes = clean
                let at = Int.random(in: 0..<clean.count, using: &random)
                bytes[at] ^= UInt8.random(in: 1...255, using: &random)
                try await damaged(bytes, "byte \(at) flipped")
            } else {
                let length = Int.random(in: 0..<clean.count, using: &random)
                try await damaged(Array(clean.prefix(length)), "cut to \(length)")
            }
            if (step + 1) % 500 == 0 {
                FileHandle.standardError.write(Data("  index: \(step + 1) of \(total) damaged runs, \(wrong) wrong, \(crashed) crashed\n".utf8))
            }
        }

        func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
        let cleanPeak = cleanRuns.map(\.peakMiB).max() ?? 0, cleanMedian = median(cleanRuns.map(\.peakMiB))
        let damagedPeak = damagedRuns.map(\.peakMiB).max() ?? 0
        Measure.header("The index checked (issue 45): a decade's index.bin (\(clean.count) bytes, \(days) days), "
                       + "\(flips) single-byte flips and \(cuts) truncations, each read by a fresh reader process")
        Measure.row("wrong answers", "\(wrong) of \(total)", "fresh reader, no index", ratio: nil, goal: "0")
        Measure.row("crashes (exit other than 0)", "\(crashed) of \(total)", "", ratio: nil, goal: "0")
        Measure.row("damage repaired without a word", "\(silent) of \(total)", "", ratio: nil, goal: "0")
        Measure.row("peak RSS, worst damaged run", Measure.format(damagedPeak, "MiB", digits: 1),
                    "clean, worst of \(cleanRuns.count) " + Measure.format(cleanPeak, "MiB", digits: 1),
                    ratio: cleanPeak > 0 ? damagedPeak / cleanPeak : nil, goal: "≤ 1.2×")
        Measure.row("peak RSS, median damaged run", Measure.format(median(damagedRuns.map(\.peakMiB)), "MiB", digits: 1),
                    "clean, median " + Measure.format(cleanMedian, "MiB", digits: 1),
                    ratio: cleanMedian > 0 ? median(damagedRuns.map(\.peakMiB)) / cleanMedian : nil, goal: "")
        Measure.row("wall time, median damaged run", Measure.format(median(damagedRuns.map(\.seconds)) * 1000, "ms", digits: 0),
                    "clean, median " + Measure.format(median(cleanRuns.map(\.seconds)) * 1000, "ms", digits: 0),
                    ratio: median(cleanRuns.map(\.seconds)) > 0 ? median(damagedRuns.map(\.seconds)) / median(cleanRuns.map(\.seconds)) : nil,
                    goal: "(a rebuild reads the decade's days)")
        for example in examples { print("  " + example) }
        print(String(format: "  %.0f s in all", Date().timeIntervalSince(started)))
        if wrong + crashed + silent > 0 { throw BenchError("a damaged index changed an answer, crashed a reader, or was repaired without a word") }
    }

    /// One child reader over the mirror at `directory`.
    static func answers(_ directory: String) async throws -> Child {
        var child = try await Child.run("efferent-bench", ["index-answers", directory], home: directory)
        child = Child(seconds: child.seconds, output: child.output.trimmed, peakMiB: child.peakMiB, cpuSeconds: child.cpuSeconds)
        return child
    }
}
