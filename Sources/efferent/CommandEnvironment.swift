import EfferentClient
import EfferentReader
import EfferentCommandLine
import EfferentSystem
import EfferentWriter
import Foundation

/// `--priority LIST`, taken by every command that builds days (push, apply, check).
enum PriorityOption {
    static let option = CommandSpec.Option("priority", value: "LIST", help: "Source classes for overlapping totals, highest first.",
                                           default: "Watch,iPhone")

    static func parse(_ arguments: ParsedArguments) throws(UsageError) -> SourcePriority {
        guard let priority = SourcePriority(parsing: arguments.string("priority", default: "Watch,iPhone")) else {
            throw UsageError("--priority takes a comma-separated list such as Watch,iPhone.")
        }
        return priority
    }
}

enum Environment {
    /// `EFFERENT_RETRY_DELAYS=0,0` shortens the backoff (tests); the default is 2, 4, 8, 16 s.
    static var retryPolicy: RetryPolicy {
        guard let text = ProcessInfo.processInfo.environment["EFFERENT_RETRY_DELAYS"] else { return RetryPolicy() }
        return RetryPolicy(delays: text.split(separator: ",").compactMap { Double($0) }, jitter: 0)
    }

    static var isTerminal: Bool { Terminal.standardErrorIsTerminal }
}

/// A line on stderr that starts on a line of its own, even while a progress bar is drawn.
func note(_ text: String) {
    ProgressBar.clearLine()
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension WriterContext {
    /// The writer profile in `EFFERENT_HOME`, retrying as the environment says and saying so on stderr.
    convenience init() throws { try self.init(profile: .standard(), retry: Environment.retryPolicy, onRetry: { note($0) }) }
}

extension ReaderContext {
    /// The reading profile in `EFFERENT_HOME`, retrying as the environment says and saying so on stderr.
    convenience init() throws { try self.init(profile: .standard(), retry: Environment.retryPolicy, onRetry: { note($0) }) }
}
