import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentWriter
import Foundation

struct Init: Subcommand {
    static let spec = CommandSpec(
        name: "init",
        abstract: "Create this archive's keys, claim it on the service and register the read and editor keys.",
        discussion: """
        Keys live in the profile directory (EFFERENT_HOME, default ~/.efferent), readable only by you. Running init
        again with the same profile finishes a registration that was interrupted and changes nothing else.
        """,
        options: [
            .init("server", value: "URL", help: "The archive service, e.g. https://archive.example.org."),
            .init("invite", value: "CODE", help: "The invite code the service's operator gave you."),
            .init("time-zone", value: "ZONE", help: "The IANA zone your days are cut in (efferent zone set changes it).",
                  default: "the zone your first import shows"),
            .init("recover", value: "KIT", help: "Restore the archive a recovery kit opens onto this empty machine (efferent keys restore)."),
            .init("passphrase-file", value: "FILE", help: "--recover: the kit's passphrase, from a file readable only by you."),
            .flag("reader", help: "--recover: set this machine up as a reader of the archive, not its writer."),
        ],
        arguments: [.init("SHEET", help: "--recover: the other sheets of a split kit, one file each.", optional: true, variadic: true)])

    let server: String?
    let invite: String?
    let timeZone: String?
    /// `--recover`: the kit's files (a split kit's sheets), its passphrase file, and whether a reader.
    let recover: (kits: [String], passphraseFile: String?, reader: Bool)?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if arguments.string("recover") != nil {
            if arguments.string("invite") != nil || arguments.string("time-zone") != nil {
                throw UsageError("--recover takes the kit's archive as it is: --invite and --time-zone go with a new archive.")
            }
            recover = (arguments.strings("recover") + arguments.positional, arguments.string("passphrase-file"), arguments.flag("reader"))
        } else {
            if !arguments.positional.isEmpty { throw UsageError("'init' takes no argument but the sheets of a kit after --recover.") }
            for option in ["passphrase-file", "reader"] where arguments.string(option) != nil || arguments.flag(option) {
                throw UsageError("--\(option) goes with --recover KIT.")
            }
            recover = nil
        }
        server = arguments.string("server")
        if let server {
            guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host != nil, url.query == nil, url.fragment == nil else {
                throw UsageError("--server takes an http or https address with no query, like https://archive.example.org.")
            }
        }
        invite = arguments.string("invite")
        timeZone = arguments.string("time-zone")
    }

    func run() async throws -> Int32 {
        if let recover {
            return try await Keys(restoring: recover.kits, reader: recover.reader, passphraseFile: recover.passphraseFile, server: server)
                .run()
        }
        let profile = Profile.standard()
        let settings: ProfileSettings
        let reading: ReadingKey, writer: Ed25519PrivateKey, editor: EditorKey
        // Whether this run wrote the keys and settings, so a claim that fails undoes them.
        var madeHere = false
        if profile.exists(Profile.settingsName) {
            // An interrupted init: keep its keys and finish the registration.
            settings = try profile.settings()
            if settings.role == "reader" { throw WriterError.alreadyInitialised(profile.directory) }
            if let server, server.trimmingSuffix("/") != settings.endpoint {
                throw WriterError.alreadyInitialised(profile.directory)
            }
            reading = try profile.readingKey()
            writer = try profile.writerKey()
            editor = try profile.editorKey()
        } else {
            guard let server else { throw UsageError("'init' needs --server URL, the archive service to use.") }
            // No settings means nothing was claimed yet (the claim comes after they are saved), so
            // keys an interrupted init left behind are simply made anew below.
            // Without --time-zone the machine's zone is only provisional: a server's is often UTC,
            // whatever zone the phone lived in. The first import pins the zone its records show.
            let zoneName = timeZone ?? TimeZone.current.identifier
            guard let zone = ZoneCalendar(identifier: zoneName) else { throw WriterError.unknownTimeZone(zoneName) }
            reading = ReadingKey()
            writer = Ed25519PrivateKey()
            editor = EditorKey()
            settings = ProfileSettings(endpoint: server.trimmingSuffix("/"), bucket: reading.bucket, timeZone: zoneName,
                                       hourlyFrom: zone.day(of: Date().timeIntervalSince1970), role: "writer", timeZonePinned: timeZone != nil)
            try profile.prepare()
            try profile.write(KeyFile.readingName, KeyFile.encode(reading))
            try profile.write(KeyFile.writerName, KeyFile.encodeWriterKey(writer))
            try profile.write(KeyFile.editorName, KeyFile.encode(editor))
            // The settings last: their presence says every key above is on disk.
            try profile.save(settings)
            madeHere = true
        }
        let client = ArchiveClient(endpoint: settings.endpoint, bucket: settings.bucket, retry: Environment.retryPolicy)
        let created: Bool
        do {
            created = try await client.claim(writer: writer, invite: invite)
        } catch {
            // A claim refused, or a service that could not be reached or is not an archive service
            // (a mistyped --server), claimed nothing: the keys and settings this run wrote go, so
            // the corrected `init` starts clean rather than finding "keys already here". A failure
            // worth retrying (a 5xx, a dropped connection) may have claimed it: they stay, and the
            // same `init` finishes it.
            if madeHere, !error.isTransient {
                try profile.remove([Profile.settingsName, KeyFile.readingName, KeyFile.writerName, KeyFile.editorName])
                note("nothing was claimed, so the keys this run made were removed; the profile is as it was before")
            }
            // A service admitting by invitation answers 403 to a claim without a code.
            if invite == nil, case let .refused(403, message) = error, message.contains("invit") {
                throw InitError.inviteNeeded(settings.endpoint)
            }
            throw error
        }
        try await client.register(.reader, key: reading.readKey.publicKey, writer: writer)
        try await client.register(.editor, key: editor.publicKey, writer: writer)
        let handoff = try EfferentCore.Handoff(endpoint: settings.endpoint, bucket: settings.bucket, readingKey: reading, editorKey: editor)
        try profile.write(Profile.handoffName, Array((handoff.text + "\n").utf8))
        print("\(created ? "created" : "confirmed") archive \(settings.bucket) on \(settings.endpoint)")
        if settings.timeZonePinned {
            print("days are cut in \(settings.timeZone); keys are in \(profile.directory)")
        } else {
            print("days will be cut in the zone your first import shows (the zone its records name, else the offset its dates "
                  + "are written with; this machine's \(settings.timeZone) until then); keys are in \(profile.directory)")
        }
        print("handoff for a reader or an agent: \(profile.path(Profile.handoffName)) (a secret: it opens every day)")
        print("next: efferent import export.zip, then efferent push")
        return 0
    }
}

enum InitError: Error, CustomStringConvertible {
    case inviteNeeded(String)
    var description: String {
        switch self {
        case let .inviteNeeded(endpoint):
            "The service at \(endpoint) creates archives by invitation: ask its operator for a code (efferent-server invite) and run efferent init --server \(endpoint) --invite CODE."
        }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
