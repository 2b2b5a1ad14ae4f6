import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentReader
import Foundation

struct MCP: Subcommand {
    static let spec = CommandSpec(
        name: "mcp",
        abstract: "Serve the archive to an AI agent over MCP (JSON-RPC on stdin and stdout), answering from the local mirror.",
        discussion: """
        Add it to your agent as a stdio server, e.g. for Claude Code:
          claude mcp add efferent -e EFFERENT_HOME=$HOME/.efferent -- efferent mcp
        The mirror is refreshed from the service at most every five minutes; the keys never leave this machine.
        """)

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        var world = LocalMCPServer.World(
            source: { context.source },
            today: { context.today },
            refresh: { full in
                let mirror = context.mirror
                // A refresh takes the last 14 days; the whole listing when forced or when counts disagree.
                let stats = try await context.client().stats()
                let walkAll = full || stats.days != mirror.days.count
                let report = walkAll ? try await context.sync() : try await context.sync(from: context.today.adding(days: -14), to: context.today.next)
                return .object(["copied": .number(Double(report.fetched)), "readable": .number(Double(mirror.days.count)),
                                "firstDay": mirror.days.first.map { .string($0.description) } ?? .null,
                                "lastDay": mirror.days.last.map { .string($0.description) } ?? .null])
            },
            archive: { (try? await context.client().stats()).map(ArchiveFacts.init) })
        if let agent = try? AgentContext().agent {
            world.write = { items in
                let queued = try await agent.write(items)
                return .object(["name": .string(queued.name.rawValue), "items": .number(Double(items.count)),
                                "status": .string("pending"),
                                "note": .string("The owner's writer applies it on its next push; phone_data_edits shows the answer.")])
            }
            world.edits = { all in .object(["edits": .array(try await agent.status(all: all).map(\.json))]) }
        }
        let server = LocalMCPServer(world: world)
        while let line = readLine(strippingNewline: true) {
            if let answer = await server.handle(line) {
                FileHandle.standardOutput.write(Data((answer + "\n").utf8))
            }
        }
        return 0
    }
}
