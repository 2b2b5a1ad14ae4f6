import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import EfferentWriter
import Foundation

/// The agent's side: what a handoff with an editor key allows.
struct AgentContext {
    let reader: ReaderContext
    let editor: Ed25519PrivateKey

    init() throws {
        reader = try ReaderContext()
        guard reader.profile.exists(KeyFile.editorName) else { throw EditCommandError.readOnly }
        editor = try reader.profile.editorKey().privateKey
    }

    var agent: EditAgent { EditAgent(client: reader.client(), reading: reader.reading, editor: editor, profile: reader.profile) }
}

enum EditCommandError: Error, CustomStringConvertible {
    case readOnly
    case cannotRead(String)

    var description: String {
        switch self {
        case .readOnly: "This profile holds no editor key (its handoff was read only); ask the owner for a full handoff to write."
        case let .cannotRead(path): "\(path) cannot be read; give a JSON file of edit items."
        }
    }
}

struct Write: Subcommand {
    static let spec = CommandSpec(
        name: "write",
        abstract: "Send entries (meals, water, weight, sleep) to the owner's writer as one sealed, signed edit.",
        discussion: """
        FILE holds a JSON list of items (protocol §8), e.g.
          [{"op":"put","id":"agent:meal:2026-09-07:lunch","metric":"dietaryEnergy","start":1788775200,"end":1788775200,"value":650,"unit":"kcal"}]
        Every item is checked before anything is sealed; the writer applies it on its next push.
        """,
        options: [.init("items", value: "FILE", help: "The JSON items to send; - reads standard input.")])

    let items: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let items = arguments.string("items") else { throw UsageError("write needs --items FILE.") }
        self.items = items
    }

    func run() async throws -> Int32 {
        let bytes: [UInt8]
        if items == "-" {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: items) else { throw EditCommandError.cannotRead(items) }
            bytes = Array(data)
        }
        let parsed = try EditAgent.items(json: bytes)
        let queued = try await AgentContext().agent.write(parsed)
        print("queued edit \(queued.name) (\(parsed.count) items, \(queued.bytes) bytes sealed); the writer applies it on its next push")
        return 0
    }
}

struct Edits: Subcommand {
    static let spec = CommandSpec(
        name: "edits",
        abstract: "List agent edits and what the writer answered; on the writer, show or undo what agents did.",
        discussion: """
        efferent edits              edits still waiting for the writer
        efferent edits --all        every edit, with applied counts and each failed item's index, id and word
        efferent edits --local      on the writer: the journal of every item an agent applied
        efferent edits undo NAME    on the writer: take edit NAME back; the next push re-sends its days
        """,
        options: [
            .flag("all", help: "Include edits the writer has answered."),
            .init("after", value: "NAME", help: "Only edits queued after this one."),
            .flag("local", help: "The writer's own journal of applied edits."),
            .flag("json", help: "JSON lines instead of text."),
        ],
        arguments: [.init("undo", help: "undo, followed by an edit name", optional: true), .init("NAME", help: "The edit to undo.", optional: true)])

    enum Action { case remote(all: Bool, after: EditName?), local, undo(EditName) }
    let action: Action
    let json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag("json")
        let positional = arguments.positional
        if let verb = positional.first {
            guard verb == "undo", positional.count == 2 else { throw UsageError("edits takes `undo NAME`, or options only.") }
            guard let name = try? EditName(positional[1]) else { throw UsageError("\(positional[1].prefix(40)) is not an edit name (13 digits, a dash, 8 characters).") }
            action = .undo(name)
        } else if arguments.flag("local") {
            action = .local
        } else {
            var after: EditName?
            if let text = arguments.string("after") {
                guard let name = try? EditName(text) else { throw UsageError("--after takes an edit name (13 digits, a dash, 8 characters).") }
                after = name
            }
            action = .remote(all: arguments.flag("all"), after: after)
        }
    }

    func run() async throws -> Int32 {
        switch action {
        case let .remote(all, after):
            let statuses = try await AgentContext().agent.status(all: all, after: after)
            for status in statuses {
                if json { print(String(decoding: try status.json.canonicalBytes(), as: UTF8.self)); continue }
                var line = "\(status.name)  \(status.at)  \(status.status)"
                if let applied = status.applied { line += "  applied \(applied), failed \(status.failed.count)" }
                print(line)
                for failure in status.failed { print("    item \(failure.item)\(failure.id.map { " (\($0))" } ?? ""): \(failure.code)") }
            }
            if statuses.isEmpty && !json { print(all ? "no edits" : "no edits are waiting") }
        case .local:
            let context = try WriterContext()
            let entries = try context.store.editJournal()
            for entry in entries {
                if json { print(String(decoding: try entry.json.canonicalBytes(), as: UTF8.self)); continue }
                let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: entry.at))
                var line = "\(when)  \(entry.edit) #\(entry.item)  \(entry.op) \(entry.agentID)"
                if let metric = entry.metric { line += "  \(metric) \(entry.value.map { formatNumber($0) } ?? entry.stage ?? "")\(entry.unit.map { " " + $0 } ?? "")" }
                if let old = entry.displaced { line += "  (displaced \(old.metric) \(old.value.map { formatNumber($0) } ?? old.stage ?? ""))" }
                if entry.undone != nil { line += "  [undone]" }
                print(line)
            }
            if entries.isEmpty && !json { print("no agent has changed anything here") }
        case let .undo(name):
            let context = try WriterContext()
            let report = try context.store.undo(edit: name, now: Date())
            print("undid \(report.items) items of \(name); \(report.days.count) days marked: run `efferent push` to send them")
        }
        return 0
    }

    func formatNumber(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

struct Apply: Subcommand {
    static let spec = CommandSpec(
        name: "apply",
        abstract: "Apply the agent edits waiting on the service, answer each, and upload the days they touched.",
        options: [PriorityOption.option])

    let priority: SourcePriority

    init(_ arguments: ParsedArguments) throws(UsageError) { priority = try PriorityOption.parse(arguments) }

    func run() async throws -> Int32 {
        let context = try WriterContext()
        guard let report = try await context.applyEditsPrinting() else {
            print("this archive has no editor key, so there are no edits to apply")
            return 0
        }
        let push = try await context.push(check: .never, priority: priority)
        print("sent \(push.sent) days in \(push.requests) requests; \(push.refused) refused")
        return report.refused > 0 || push.refused > 0 ? 1 : 0
    }
}

extension WriterContext {
    /// Applies and answers waiting edits, printing one line per edit; nil without an editor key.
    func applyEditsPrinting() async throws -> EditApplier.Report? {
        guard let report = try await applyEdits() else { return nil }
        for (name, outcome) in report.outcomes {
            let failures = outcome.failed.map { "item \($0.item): \($0.code.rawValue)" }.joined(separator: ", ")
            print("edit \(name): applied \(outcome.applied)" + (failures.isEmpty ? "" : ", failed \(failures)"))
        }
        return report
    }
}
