import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentCrypto
import EfferentRecovery
import EfferentSystem
import EfferentWriter
import Foundation

/// `efferent keys`: the recovery kit (backup, verify, restore) and key rotation.
struct Keys: Subcommand {
    static let spec = CommandSpec(
        name: "keys",
        abstract: "Write a recovery kit and prove it opens the archive; restore from one; rotate the keys to take a handoff back.",
        discussion: """
        efferent keys backup [--out FILE] [--split 2-of-3]   write a kit: FILE and a page to print beside it (FILE.html)
        efferent keys verify KIT...                         prove the kit opens this archive, printing no secret
        efferent keys restore KIT... [--reader]             a writer (or a reader) on an empty machine from a kit
        efferent keys rotate                                new reading and editor keys; every day sealed anew
        A kit is its file, the text of its QR code, or its 24 words typed into a file; a split kit
        takes as many sheets as it needs, one file each. The passphrase is asked at the terminal, or
        read from --passphrase-file; backup makes one (8 words, 88 bits) when none is given.
        """,
        options: [
            .init("out", value: "FILE", help: "backup: the kit's file; its printable page goes beside it.",
                  default: "efferent-kit-<archive>-<date>.txt"),
            .init("split", value: "K-of-N", help: "backup: N sheets, any K of which recover (e.g. 2-of-3); one alone reveals nothing."),
            .init("passphrase-file", value: "FILE", help: "The passphrase, from a file readable only by you (for drills and scripts)."),
            .init("server", value: "URL", help: "verify, restore: the service's address when the kit's is no longer right, or only words are given."),
            .flag("reader", help: "restore: set this machine up as a reader of the archive, not its writer."),
        ],
        arguments: [.init("VERB", help: "backup, verify, restore or rotate."),
                    .init("KIT", help: "verify, restore: the kit (its file, QR text or typed words), one file per sheet.", optional: true,
                          variadic: true)])

    enum Action {
        case backup(out: String?, split: (threshold: Int, count: Int)?)
        case verify([String])
        case restore([String], reader: Bool)
        case rotate
    }

    let action: Action
    let passphraseFile: String?
    let server: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        passphraseFile = arguments.string("passphrase-file")
        server = try arguments.string("server").map { text throws(UsageError) in try Self.serverURL(text) }
        let kits = Array(arguments.positional.dropFirst())
        let verb = arguments.argument(0) ?? ""
        func only(_ options: [String], for verbs: String) throws(UsageError) {
            for option in options where arguments.string(option) != nil || arguments.flag(option) {
                throw UsageError("--\(option) goes with `keys \(verbs)`.")
            }
        }
        switch verb {
        case "backup":
            try only(["server", "reader"], for: "verify and restore")
            guard kits.isEmpty else { throw UsageError("`keys backup` takes no kit; it writes one (--out names its file).") }
            action = .backup(out: arguments.string("out"), split: try arguments.string("split").map(Self.split))
        case "verify", "restore":
            try only(["out", "split"], for: "backup")
            if verb == "verify" { try only(["reader"], for: "restore") }
            guard !kits.isEmpty else { throw UsageError("`keys \(verb)` needs the kit: its file, the text of its QR code, or its words in a file.") }
            action = verb == "verify" ? .verify(kits) : .restore(kits, reader: arguments.flag("reader"))
        case "rotate":
            try only(["out", "split", "server", "reader", "passphrase-file"], for: "backup, verify and restore")
            guard kits.isEmpty else { throw UsageError("`keys rotate` takes no argument.") }
            action = .rotate
        default:
            throw UsageError("\(verb.prefix(40)) is not a verb of keys; give backup, verify, restore or rotate.")
        }
    }

    /// `init --recover`: a restore of `kits`.
    init(restoring kits: [String], reader: Bool, passphraseFile: String?, server: String?) throws(UsageError) {
        action = .restore(kits, reader: reader)
        self.passphraseFile = passphraseFile
        self.server = try server.map { text throws(UsageError) in try Self.serverURL(text) }
    }

    static func split(_ text: String) throws(UsageError) -> (threshold: Int, count: Int) {
        let parts = text.lowercased().split(separator: "-")
        guard parts.count == 3, parts[1] == "of", let threshold = Int(parts[0]), let count = Int(parts[2]),
              threshold >= 2, count >= threshold, count <= 9 else {
            throw UsageError("--split takes K-of-N with 2 ≤ K ≤ N ≤ 9, for example 2-of-3.")
        }
        return (threshold, count)
    }

    static func serverURL(_ text: String) throws(UsageError) -> String {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
              url.query == nil, url.fragment == nil else {
            throw UsageError("--server takes an http or https address with no query, like https://archive.example.org.")
        }
        return text.trimmingSuffix("/")
    }

    func run() async throws -> Int32 {
        switch action {
        case let .backup(out, split): return try await backup(out: out, split: split)
        case let .verify(kits): return try await verify(kits)
        case let .restore(kits, reader): return try await restore(kits, asReader: reader)
        case .rotate: return try await rotate()
        }
    }

    // MARK: The passphrase

    /// The passphrase from --passphrase-file (owner-only), else asked at the terminal; nil when
    /// neither is there.
    func givenPassphrase(prompt: String) throws -> String? {
        if let passphraseFile {
            guard let mode = FileMode.permissions(of: passphraseFile) else { throw KeysCommandError.noPassphraseFile(passphraseFile) }
            if mode & 0o077 != 0 { throw ProfileError.readableByOthers(passphraseFile) }
            guard let data = FileManager.default.contents(atPath: passphraseFile) else { throw ProfileError.cannotRead(passphraseFile) }
            let text = Passphrase.normalised(String(decoding: data, as: UTF8.self))
            guard !text.isEmpty else { throw KeysCommandError.emptyPassphrase(passphraseFile) }
            return text
        }
        guard SecretPrompt.isAvailable else { return nil }
        return SecretPrompt.ask(prompt).map(Passphrase.normalised)
    }

    /// Reads each kit argument (a file, or - for standard input) into what it holds.
    static func inputs(_ paths: [String]) throws -> [KitInput] {
        try paths.map { path in
            let text: String
            if path == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard FileKind.isDirectory(path) == false, let data = FileManager.default.contents(atPath: path) else {
                    throw KeysCommandError.noKit(path)
                }
                guard data.count <= 64 * 1024 else { throw KitError.notAKit("\(path) is far larger than any kit") }
                text = String(decoding: data, as: UTF8.self)
            }
            return try KitInput(text: text)
        }
    }
}

enum KeysCommandError: Error, CustomStringConvertible {
    case noKit(String)
    case noPassphraseFile(String)
    case emptyPassphrase(String)
    case noPassphrase
    case shortPassphrase(Int)
    case exists(String)
    case passphrasesDiffer

    var description: String {
        switch self {
        case let .noKit(path): "There is no kit file at \(path); give the kit's file, a file with the text of its QR code, or one with its 24 words."
        case let .noPassphraseFile(path): "There is no passphrase file at \(path)."
        case let .emptyPassphrase(path): "\(path) is empty; it should hold the passphrase on its first line."
        case .noPassphrase: "The kit's passphrase is needed: run this at a terminal to be asked for it, or give --passphrase-file FILE."
        case let .shortPassphrase(count):
            "A passphrase of \(count) characters is too easily guessed by someone who finds the sheet; use at least 12, or press Enter to have one made."
        case let .exists(path): "\(path) exists already, and a kit is never written over; choose another --out."
        case .passphrasesDiffer: "The two passphrases typed differ; nothing was written."
        }
    }
}
