import Foundation
import EfferentBenchFloor

/// Timing and reporting for scripts/bench: every figure is the median of several runs and is
/// printed beside a reference measured in the same run, as a ratio.
enum Measure {
    /// Median wall time of `runs` calls of `body`, in seconds.
    static func seconds(runs: Int = 3, _ body: () throws -> Void) rethrows -> Double {
        var times = [Double]()
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return times.sorted()[times.count / 2]
    }

    /// Median wall time and median CPU time of this thread over `runs` calls of `body`, in
    /// seconds: on a shared machine the CPU time is what other processes do not stretch.
    static func times(runs: Int = 3, _ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
        var walls = [Double](), cpus = [Double]()
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds, cpuStart = threadCPUSeconds
            try body()
            walls.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            cpus.append(threadCPUSeconds - cpuStart)
        }
        return (walls.sorted()[runs / 2], cpus.sorted()[runs / 2])
    }

    /// CPU seconds this thread has used.
    static var threadCPUSeconds: Double {
        BenchFloor.threadCPUSeconds
    }

    /// Peak resident set size of this process so far, in MiB (VmHWM).
    static var peakRSSMiB: Double { peakRSSMiB(of: nil) }

    /// The same of another process (a server the bench started); 0 when it cannot be read.
    static func peakRSSMiB(of pid: Int32?) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib / 1024
    }

    static func row(_ name: String, _ value: String, _ reference: String, ratio: Double?, goal: String) {
        let ratioText = ratio.map { String(format: "%.2f×", $0) } ?? "—"
        print(pad(name, 44) + pad(value, 18) + pad(reference, 26) + pad(ratioText, 9) + goal)
    }

    static func header(_ title: String) {
        print("\n" + title)
        print(pad("figure", 44) + pad("Efferent", 18) + pad("same-run reference", 26) + pad("ratio", 9) + "goal")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func format(_ value: Double, _ unit: String, digits: Int = 2) -> String {
        String(format: "%.\(digits)f", value) + " " + unit
    }
}
