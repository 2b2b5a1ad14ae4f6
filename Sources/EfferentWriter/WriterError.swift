/// Why the writer stopped, as one sentence a person can act on. Never names a health value or a key.
public enum WriterError: Error, Equatable, CustomStringConvertible {
    case newerDatabase(Int)
    case notInitialised(String)
    /// The profile reads an archive from a handoff; writing needs the owner's profile.
    case readerProfile(String)
    case unknownTimeZone(String)
    case alreadyInitialised(String)
    case importFailed(String)
    case parked(Int)

    public var description: String {
        switch self {
        case let .newerDatabase(version): "The writer's database was made by a newer efferent (schema \(version)); use that version or newer."
        case let .notInitialised(path): "There is no writer profile in \(path): run `efferent init --server URL` first."
        case let .readerProfile(path):
            "\(path) reads an archive from a handoff; writing into it happens on the owner's profile (the one made by init), so run this there, or set EFFERENT_HOME to it."
        case let .unknownTimeZone(zone): "\(zone) is not a time zone this machine knows; give an IANA name such as Europe/Berlin."
        case let .alreadyInitialised(path): "\(path) already holds an archive's keys; use another EFFERENT_HOME, or move that one away to start over."
        case let .importFailed(reason): "The import stopped: \(reason)"
        case let .parked(count): "\(count) days were refused five times and are parked; `efferent status` lists them, and the daily check retries them."
        }
    }
}
