import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child started with `posix_spawn(3)` and waited for with `waitpid(2)`, for a caller that must
/// watch it run (its `/proc/PID/status`) rather than only collect its end: the argument and
/// environment vectors, file actions and the wait status stay here.
public enum ChildProcess {
    /// Starts `path` with `arguments` (after its own name) and `environment`, its standard output
    /// into a new file at `output` (0600) and its standard error to /dev/null; its process id.
    public static func spawn(_ path: String, arguments: [String], environment: [String: String], output: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard rc == 0 else { throw POSIXError(.ENOEXEC) }
        return pid
    }

    /// The exit status of the child `pid` once it has ended (reaping it), nil while it runs.
    public static func exitStatus(_ pid: Int32) -> Int32? {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) != 0 else { return nil }
        return (status >> 8) & 0xFF
    }
}
