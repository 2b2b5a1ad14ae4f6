import EfferentCore

/// Why an SQL export or query was refused; each description is one sentence saying what to do.
public enum SQLExportError: Error, Equatable, CustomStringConvertible {
    /// The file exists and is not an export this program wrote.
    case notAnExport(String)
    /// The file is the export of another archive.
    case otherArchive(String, archive: String)
    /// The file or its folder cannot be written.
    case cannotWrite(String, reason: String)

    public var description: String {
        switch self {
        case let .notAnExport(path):
            return "\(path) exists and is not an Efferent export; choose another file name, or move it away first."
        case let .otherArchive(path, archive):
            return "\(path) holds the export of another archive (\(archive)); choose another file name for this one."
        case let .cannotWrite(path, reason):
            return "\(path) cannot be written (\(reason)); choose a folder you can write to."
        }
    }
}

/// Why `efferent sql` did not run a statement.
public enum SQLQueryError: Error, Equatable, CustomStringConvertible {
    /// Nothing but whitespace and comments.
    case noStatement
    /// More than one statement in the text.
    case severalStatements
    /// A statement that would change something (or attach, or begin a transaction).
    case notARead(String)
    /// SQLite could not prepare it: a typo, a table or column the schema lacks.
    case doesNotPrepare(String)
    /// It started and failed while running.
    case failed(String)
    /// A function that reads but is refused all the same (it loads code or exposes memory).
    case refusedFunction(String)
    /// It ran past its time.
    case tookTooLong(seconds: Double)
    /// It made a string or blob past the ceiling.
    case tooBig(bytes: Int)
    /// One row held more than the ceiling, its values together.
    case rowTooBig(bytes: Int)
    /// It needed more memory (sorts, temporary tables, values) than SQLite may hold.
    case tooMuchMemory(bytes: Int64)
    /// Its temporary files (sorts that spill, transient tables) grew past the ceiling.
    case temporaryFilesTooBig(bytes: Int64)

    /// Whether the statement itself is at fault (a usage error), rather than the file.
    public var isRefusal: Bool {
        switch self {
        case .failed, .tookTooLong, .tooBig, .rowTooBig, .tooMuchMemory, .temporaryFilesTooBig: return false
        default: return true
        }
    }

    public var description: String {
        switch self {
        case .noStatement:
            return "efferent sql needs a statement such as \"SELECT * FROM metrics\"; documents/sql.md lists the tables."
        case .severalStatements:
            return "efferent sql runs one statement at a time; split the text at its semicolons and run each."
        case let .notARead(statement):
            return "efferent sql only reads, and '\(statement)' would change something, attach a file or open a transaction; "
                + "run it on your own copy from `efferent export sqlite FILE` instead."
        case let .doesNotPrepare(message):
            return "the statement does not run: \(message); documents/sql.md lists the tables and their columns."
        case let .failed(message):
            return "the statement failed while running: \(message)."
        case let .refusedFunction(name):
            return "efferent sql does not run \(name)(), which loads code or exposes this program's memory; leave it out of the statement."
        case let .tookTooLong(seconds):
            let time = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
            return "the statement was stopped after \(time) s; narrow it (a WHERE on day, a LIMIT), or give it longer with --time-limit."
        case let .tooBig(bytes):
            return "the statement made a value over \(bytes >> 20) MiB and was stopped; a string or blob that large is no answer to read."
        case let .rowTooBig(bytes):
            return "the statement made a row over \(bytes >> 20) MiB and was stopped; select fewer or smaller values (length(x) instead of x)."
        case let .tooMuchMemory(bytes):
            return "the statement needed more than \(bytes >> 20) MiB of memory and was stopped; "
                + "narrow it (a WHERE on day, a LIMIT) or select fewer and smaller values."
        case let .temporaryFilesTooBig(bytes):
            return "the statement's sorts and temporary tables passed \(bytes >= 1 << 30 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB") on disk and it was stopped; "
                + "narrow it (a WHERE on day, a LIMIT) or aggregate before DISTINCT and ORDER BY."
        }
    }
}
