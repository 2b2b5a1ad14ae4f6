import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether a person is watching: progress lines are drawn only on a terminal (`isatty(3)`).
public enum Terminal {
    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    public static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
