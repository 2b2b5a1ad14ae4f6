import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks the person at the terminal for a secret (a kit's passphrase) without showing what they
/// type: the prompt goes to, and the answer comes from, `/dev/tty` with echo off (termios(3)), so
/// neither ends up in a pipe or a log, and echo is put back whatever happens.
public enum SecretPrompt {
    /// Whether there is a terminal to ask at.
    public static var isAvailable: Bool {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// The line typed after `prompt`, without its line ending; nil without a terminal or at end of input.
    public static func ask(_ prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        let haveTerminal = tcgetattr(fd, &saved) == 0
        if haveTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ICANON)
            _ = tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer {
            if haveTerminal {
                _ = tcsetattr(fd, TCSAFLUSH, &saved)
                _ = Glibc.write(fd, "\n", 1)
            }
        }
        let promptBytes = Array(prompt.utf8)
        _ = promptBytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        var line = [UInt8]()
        var byte: UInt8 = 0
        while true {
            let got = read(fd, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == 0x0A { break }
            line.append(byte)
        }
        if line.last == 0x0D { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
