import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which user this process acts as. An operator command run as root against a data directory that
/// belongs to the service's own user (the Debian package's `efferent-server`) becomes that user
/// first, so the SQLite files it creates (`-wal`, `-shm`, a new archive) stay the service's and
/// never turn into root's, which the service could not open.
public enum ProcessIdentity {
    public struct SwitchError: Error, CustomStringConvertible {
        public let description: String
    }

    /// When running as root and `directory` exists and belongs to another user, drops root for that
    /// user and its group (supplementary groups cleared); returns the user's name. Returns nil and
    /// changes nothing otherwise. Throws when a call to switch fails, leaving the process as it was
    /// or, if `setuid` failed after `setgid`, refusing to go on.
    public static func becomeOwner(of directory: String) throws(SwitchError) -> String? {
        guard geteuid() == 0 else { return nil }
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid != 0 else { return nil }
        let name = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) } ?? "uid \(info.st_uid)"
        guard setgroups(0, nil) == 0, setgid(info.st_gid) == 0, setuid(info.st_uid) == 0 else {
            throw SwitchError(description: "\(directory) belongs to \(name), and switching to that user failed (\(String(cString: strerror(errno)))); "
                              + "run the command as \(name): sudo -u \(name) efferent-server …")
        }
        return name
    }
}
