import Foundation
import EfferentBenchFloor

/// A CPU ceiling for one process, set with a cgroup (v1's `cpu.cfs_quota_us`, or v2's `cpu.max`):
/// the benchmark's model of "each service process on a small machine of its own" on a machine
/// whose few cores everything else shares too. Needs root; `nil` where cgroups cannot be written.
final class CPUCap {
    private let directory: String

    /// Caps `pid` at `cores` (0.3 = 30 ms of CPU every 100 ms, across all its threads).
    init?(pid: Int32, cores: Double, name: String) {
        let quota = Int(cores * 100_000)
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us") {
            directory = "/sys/fs/cgroup/cpu/\(name)"
            guard (try? fileManager.createDirectory(atPath: directory, withIntermediateDirectories: false)) != nil,
                  Self.write("100000", to: "\(directory)/cpu.cfs_period_us"),
                  Self.write("\(quota)", to: "\(directory)/cpu.cfs_quota_us") else { return nil }
        } else if let controllers = try? String(contentsOfFile: "/sys/fs/cgroup/cgroup.controllers", encoding: .utf8),
                  controllers.split(separator: " ").contains(where: { $0.hasPrefix("cpu") }) {
            directory = "/sys/fs/cgroup/\(name)"
            _ = Self.write("+cpu", to: "/sys/fs/cgroup/cgroup.subtree_control")
            guard (try? fileManager.createDirectory(atPath: directory, withIntermediateDirectories: false)) != nil,
                  Self.write("\(quota) 100000", to: "\(directory)/cpu.max") else { return nil }
        } else {
            return nil
        }
        guard Self.write("\(pid)", to: "\(directory)/cgroup.procs") else {
            BenchFloor.removeDirectory(directory)
            return nil
        }
    }

    /// Removes the group; call once its process has exited.
    func remove() { BenchFloor.removeDirectory(directory) }

    private static func write(_ text: String, to path: String) -> Bool {
        guard let handle = FileHandle(forWritingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data(text.utf8))) != nil
    }
}
