import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the machine's CPU time goes during a measurement, read from /proc: the seconds used by
/// processes of a few names (utime + stime, /proc/PID/stat fields 14 and 15) and by the whole
/// machine (/proc/stat's first line, idle and iowait left out).
struct CPUTime {
    var byName: [String: Double]
    var busy: Double
    var wall: Date

    static let names: Set<String> = ["efferent-server", "postgres"]
    private static let tick = Double(sysconf(Int32(_SC_CLK_TCK)))

    static func now() -> CPUTime {
        var byName = [String: Double]()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in entries where pid.allSatisfy(\.isNumber) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            guard names.contains(name) else { continue }
            // Fields after the name start at field 3 (state); utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            byName[name, default: 0] += (user + system) / tick
        }
        var busy = 0.0
        if let line = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?.split(separator: "\n").first {
            let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            // user nice system idle iowait irq softirq steal …
            busy = values.enumerated().filter { $0.offset != 3 && $0.offset != 4 && $0.offset < 8 }.map(\.element).reduce(0, +) / tick
        }
        return CPUTime(byName: byName, busy: busy, wall: Date())
    }

    /// CPU seconds one process has used (utime + stime), this one for nil; 0 when it cannot be read.
    static func seconds(of pid: Int32?) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / tick
    }

    /// CPU seconds per name between `start` and now, the machine's busy seconds, and the share of
    /// every core that was busy.
    static func since(_ start: CPUTime) -> (byName: [String: Double], busy: Double, utilisation: Double) {
        let end = now()
        var used = [String: Double]()
        for name in names { used[name] = (end.byName[name] ?? 0) - (start.byName[name] ?? 0) }
        let busy = end.busy - start.busy
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        return (used, busy, busy / (end.wall.timeIntervalSince(start.wall) * cores))
    }
}
