import EfferentClient
import EfferentCommandLine
import EfferentCore
import Foundation

struct Handoff: Subcommand {
    static let spec = CommandSpec(
        name: "handoff",
        abstract: "Print the handoff text that lets a reader or an agent open this archive.",
        options: [.flag("read-only", help: "Leave out the editor key, so the holder can read but not write.")])

    let readOnly: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) { readOnly = arguments.flag("read-only") }

    func run() async throws -> Int32 {
        let profile = Profile.standard()
        let settings = try profile.settings()
        let handoff = try EfferentCore.Handoff(endpoint: settings.endpoint, bucket: settings.bucket, readingKey: try profile.readingKeys().current,
                                               editorKey: readOnly ? nil : try profile.rotationJournal()?.editor ?? profile.editorKey())
        note("This text is a secret: whoever holds it can read every day of your archive\(readOnly ? "" : " and ask to write into it"). Store it with chmod 600.")
        print(handoff.text)
        return 0
    }
}
