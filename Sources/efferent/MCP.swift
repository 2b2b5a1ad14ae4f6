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
        let context: ReaderContext
        do {
            context = try ReaderContext()
        } catch {
            // No profile: the agent's client gets the sentence as a JSON-RPC error on every
            // request, rather than a connection that closed with nothing said.
            await serve(LocalMCPServer(unavailable: "\(error)"))
            return 0
        }
        await serve(LocalMCPServer(world: Self.world(context)))
        return 0
    }

    /// What the MCP server answers from: the mirror, refreshed from the service before an answer
    /// at most every five minutes, and the write tools when the profile holds an editor key. The
    /// same for stdio and for the dashboard's `/mcp`, where `refreshing` is false: the dashboard's
    /// own background sync keeps the mirror fresh, and two syncs of one mirror never run at once.
    /// `offline`: the dashboard was started with --offline, and nothing refreshes the mirror.
    static func world(_ context: ReaderContext, refreshing: Bool = true, offline: Bool = false) -> LocalMCPServer.World {
        var world = LocalMCPServer.World(
            source: { context.source },
            today: { context.today },
            refresh: { full in
                let mirror = context.mirror
                guard refreshing else {
                    return .object(["copied": .number(0), "readable": .number(Double(mirror.days.count)),
                                    "firstDay": mirror.days.first.map { .string($0.description) } ?? .null,
                                    "lastDay": mirror.days.last.map { .string($0.description) } ?? .null,
                                    "note": .string(offline
                                        ? "the dashboard serving this was started with --offline: nothing refreshes its mirror, which is as it was synced "
                                            + "(\(ReadingOptions.age(since: mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) }))); "
                                            + "efferent sync, or the dashboard without --offline, brings it up to date"
                                        : "the dashboard serving this refreshes its mirror from the service in the background once it is five minutes old")])
                }
                // A refresh before an answer never waits on a service that is away (0.3 s to accept
                // a connection, as the CLI's answers); phone_data_sync, asked for, gives it 2.5 s.
                let connectTimeout = full ? 2.5 : ReadingOptions.refreshConnectTimeout
                let stats: ArchiveStats
                do {
                    stats = try await context.client(connectTimeout: connectTimeout).stats()
                } catch let error as ArchiveError where error.isUnreachable {
                    let syncedAt = mirror.syncedAt.flatMap { ISO8601DateFormatter().date(from: $0) }
                    throw MirrorAge(synced: ReadingOptions.age(since: syncedAt), cause: "\(error)")
                }
                // A refresh takes the last 14 days; the whole listing when forced or when counts disagree.
                let walkAll = full || stats.days != mirror.days.count
                let report = walkAll ? try await context.sync(connectTimeout: connectTimeout)
                    : try await context.sync(from: context.today.adding(days: -14), to: context.today.next, connectTimeout: connectTimeout)
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
        return world
    }

    /// One JSON-RPC message a line on stdin, one answer a line on stdout, until stdin ends.
    func serve(_ server: LocalMCPServer) async {
        while let line = readLine(strippingNewline: true) {
            if let answer = await server.handle(line) {
                FileHandle.standardOutput.write(Data((answer + "\n").utf8))
            }
        }
    }
}

/// The service was away when an answer wanted a fresher mirror: the answer comes from the
/// mirror at once, and says how old it is.
struct MirrorAge: Error, CustomStringConvertible {
    let synced: String
    let cause: String
    var description: String { "the mirror was synced \(synced); the service did not answer just now: \(cause)" }
}
