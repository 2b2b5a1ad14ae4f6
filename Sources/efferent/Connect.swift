import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentSystem
import Foundation

struct Connect: Subcommand {
    static let spec = CommandSpec(
        name: "connect",
        abstract: "Set up this machine to read an archive from the handoff text its owner gave you.",
        discussion: "The handoff is a secret: the file must be readable only by you (chmod 600). Use - to read it from stdin.",
        options: [.init("handoff", value: "FILE", help: "The handoff text file, or - for standard input.")])

    let source: String

    init(_ arguments: ParsedArguments) throws(UsageError) { source = try arguments.required("handoff") }

    func run() async throws -> Int32 {
        let text: String
        if source == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let mode = FileMode.permissions(of: source) else { throw ConnectError.noHandoff(source) }
            if mode & 0o077 != 0 { throw ProfileError.readableByOthers(source) }
            guard let data = FileManager.default.contents(atPath: source) else { throw ProfileError.cannotRead(source) }
            text = String(decoding: data, as: UTF8.self)
        }
        // A reading key that derives another bucket than the MCP URL's is an archive's rotated key
        // (documents/protocol.md, "Key rotation"), or a slip: the service tells which, below.
        let handoff = try EfferentCore.Handoff(parsing: text, checkingInstruction: false, allowingRotatedKey: true)
        let profile = Profile.standard()
        // The writer's own profile already holds every key and its settings (hourly totals' start
        // among them): turning it into a reader would lose them.
        if profile.exists(KeyFile.writerName) { throw ConnectError.writerProfile(profile.directory) }
        if profile.exists(Profile.settingsName) {
            let existing = try profile.settings()
            guard existing.bucket == handoff.bucket else { throw ConnectError.otherArchive(profile.directory) }
        }
        let client = ArchiveClient(endpoint: handoff.endpoint, bucket: handoff.bucket, retry: .none)
        // The service answers reads only for the read key its owner registered: that proves a
        // rotated key belongs to this archive, and tells an old handoff (taken back) at once.
        var proven = false
        var closed = true
        do throws(ArchiveError) {
            _ = try await client.listingPage(limit: 1, readKey: handoff.readingKey.readKey)
            // A rotated key counts only where reads are closed to every key but the registered one.
            if !handoff.readingKeyDerivesBucket { closed = try await client.readsAreClosed() }
            proven = true
        } catch {
            if error.status == 403 { throw handoff.readingKeyDerivesBucket ? ConnectError.takenBack : ConnectError.foreignKey }
            if !handoff.readingKeyDerivesBucket { throw ConnectError.cannotProve(handoff.endpoint) }
        }
        guard closed else { throw ConnectError.foreignKey }
        try profile.write(KeyFile.readingName, KeyFile.encode(handoff.readingKey))
        if let editor = handoff.editorKey { try profile.write(KeyFile.editorName, KeyFile.encode(editor)) }
        let zone = profile.exists(Profile.settingsName) ? try profile.settings().timeZone : "UTC"
        try profile.save(ProfileSettings(endpoint: handoff.endpoint, bucket: handoff.bucket, timeZone: zone, hourlyFrom: nil, role: "reader"))
        // Say whether the service answers, without failing the connect if it is down right now.
        let stats = proven ? try? await client.stats() : nil
        print("connected to archive \(handoff.bucket) on \(handoff.endpoint)" + (handoff.editorKey == nil ? " (read only)" : ""))
        if let stats { print("it holds \(stats.days)\(stats.complete ? "" : "+") days" + (stats.firstDay.map { ", \($0) … \(stats.lastDay!)" } ?? "")) }
        else { note("the service did not answer just now; `efferent sync` will try again") }
        print("next: efferent sync")
        return 0
    }
}

enum ConnectError: Error, CustomStringConvertible {
    case otherArchive(String)
    case writerProfile(String)
    case noHandoff(String)
    case takenBack
    case foreignKey
    case cannotProve(String)
    var description: String {
        switch self {
        case let .noHandoff(path):
            "There is no handoff file at \(path); the archive's owner writes one with `efferent handoff > handoff.txt` and gives it to you privately."
        case let .otherArchive(path): "\(path) already reads another archive; set EFFERENT_HOME to a new directory for this one."
        case .takenBack:
            "The archive no longer takes this handoff's key: its owner rotated the keys (efferent keys rotate). Ask them for a new handoff."
        case .foreignKey:
            "The reading key belongs to a different bucket than the MCP URL, and the service does not take it as this archive's key: the handoff mixes two archives, or is one its owner has since replaced."
        case let .cannotProve(endpoint):
            "This handoff's reading key is not the one its archive was made with (its keys were rotated); the service at \(endpoint) must confirm it belongs to the archive and cannot be reached just now: try again shortly."
        case let .writerProfile(path):
            "\(path) is this archive's writer, which reads its own archive already; to try a reader here, set EFFERENT_HOME to a new directory (EFFERENT_HOME=~/.efferent-reader efferent connect …)."
        }
    }
}
