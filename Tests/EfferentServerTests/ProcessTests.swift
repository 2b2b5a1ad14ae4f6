import EfferentHTTP
import EfferentCore
@testable import EfferentServer
import EfferentTestSupport
import Foundation
import Testing

/// The real `efferent-server` process on loopback: what it acknowledged survives a restart, SIGTERM
/// lets requests in flight finish, and a backup taken under load restores to the same listing.
@Suite(.serialized) struct ProcessTests {
    static func temporaryDirectory() -> String { NSTemporaryDirectory() + "efferent-process-" + UUID().uuidString }

    /// The whole listing, following `next` page by page.
    func listing(_ port: Int, _ writer: StandInWriter) async throws -> [JSONValue] {
        var entries = [JSONValue]()
        var after: String?
        repeat {
            let target = "/b/\(writer.bucket)/days" + (after.map { "?after=\($0)" } ?? "")
            let response = try await Loopback.send(writer.read(target), port: port)
            entries += response.json?["days"]?.arrayValue ?? []
            after = response.json?["next"]?.stringValue
        } while after != nil
        return entries
    }

    @Test(arguments: ServiceKind.loopbackCases)
    func restartKeepsEverythingAcknowledged(_ kind: ServiceKind) async throws {
        let database = kind.usesPostgres ? try PostgresTestDatabase.forThisCase() : nil
        let store = database.map { ["--postgres", $0.url] } ?? ["--data", Self.temporaryDirectory()]
        let writer = StandInWriter()
        var server = try ServerProcess(store: store)
        #expect(try await Loopback.send(writer.claim(), port: server.port).status == 201)
        #expect(try await Loopback.send(writer.registerReader(), port: server.port).status == 201)
        for month in 0..<6 {
            let start = day("2025-01-01").adding(days: month * 31)
            #expect(try await Loopback.send(try writer.upload(days(from: start.description, count: 31)), port: server.port).status == 200)
        }
        let before = try await listing(server.port, writer)
        #expect(before.count == 186)
        #expect(server.terminate() == 0)
        #expect(server.log.contains("\"stopped\":true"))

        server = try ServerProcess(store: store)
        let after = try await listing(server.port, writer)
        let same = after == before
        #expect(same, "every acknowledged day, with its size and upload time")
        let unsigned = try await Loopback.send(HTTPRequest(method: "GET", target: "/b/\(writer.bucket)/days"), port: server.port)
        #expect(unsigned.status == 401, "the read key survived too")
        server.terminate()
    }

    /// Uploads keep landing while the backup runs; the copy is a consistent snapshot that a
    /// restored service serves with the same listing it had at some moment.
    @Test func backupUnderLoadRestoresToTheSameListing() async throws {
        let data = Self.temporaryDirectory()
        let writer = StandInWriter()
        let server = try ServerProcess(data: data)
        #expect(try await Loopback.send(writer.claim(), port: server.port).status == 201)
        let port = server.port
        let landing = Signal()
        let load = Task {
            var acknowledged = [String]()
            for index in 0..<60 {
                let batch = days(from: day("2000-01-01").adding(days: index * 31).description, count: 31)
                if try await Loopback.send(try writer.upload(batch), port: port).status == 200 {
                    acknowledged += batch.map(\.description)
                    landing.fire()
                }
            }
            landing.fire()
            return acknowledged
        }
        // The backup starts once the first frame has landed, so its snapshot holds some of the load.
        await landing.wait()
        let backupFile = Self.temporaryDirectory() + ".sqlite"
        let backup = Process()
        backup.executableURL = ServerProcess.binary
        backup.arguments = ["backup", "--data", data, "--to", backupFile]
        backup.standardOutput = FileHandle.nullDevice
        try backup.run()
        backup.waitUntilExit()
        #expect(backup.terminationStatus == 0)
        let acknowledged = try await load.value
        #expect(acknowledged.count == 60 * 31)
        let live = try await listing(server.port, writer).compactMap { $0["day"]?.stringValue }
        let liveMatches = live == acknowledged.sorted()
        #expect(liveMatches, "the live listing holds every acknowledged day (\(live.count) of \(acknowledged.count))")
        server.terminate()

        let restoredData = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: restoredData, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: backupFile, toPath: restoredData + "/" + SQLiteArchiveStore.fileName)
        let restored = try ServerProcess(data: restoredData)
        let snapshot = try await listing(restored.port, writer)
        let names = snapshot.compactMap { $0["day"]?.stringValue }
        #expect(names.count % 31 == 0 && !names.isEmpty, "whole frames only: each upload is one transaction")
        let prefixMatches = names == Array(acknowledged.sorted().prefix(names.count))
        #expect(prefixMatches, "the backup is the archive as it stood at one moment (\(names.count) days)")
        let sizesMatch = zip(snapshot, live).allSatisfy { $0["day"] == .string($1) }
        #expect(sizesMatch)
        restored.terminate()
    }

    @Test func helpAndUsageErrors() throws {
        func run(_ arguments: [String]) throws -> (Int32, String, String) { try ServerProcess.run(arguments) }
        let (helpStatus, help, _) = try run(["--help"])
        #expect(helpStatus == 0)
        #expect(help.hasPrefix("USAGE: efferent-server <subcommand> [options]\n"))
        for command in ["serve", "invite", "list", "backup", "stats", "remove-bucket", "migrate-store"] { #expect(help.contains("  \(command) ")) }
        let (serveHelpStatus, serveHelp, _) = try run(["serve", "--help"])
        #expect(serveHelpStatus == 0 && serveHelp.contains("--admission invite|open"))
        let (badStatus, _, bad) = try run(["serve", "--admission", "maybe"])
        #expect(badStatus == 64 && bad == "error: --admission takes invite or open.\n")
        let (listenStatus, _, listen) = try run(["serve", "--listen", "nowhere"])
        #expect(listenStatus == 64 && listen.contains("ADDRESS:PORT"))
        let data = Self.temporaryDirectory()
        let (inviteStatus, code, _) = try run(["invite", "--data", data, "--expires", "2h"])
        #expect(inviteStatus == 0 && code.trimmingCharacters(in: .newlines).count == 19)
        let (statsStatus, stats, _) = try run(["stats", "--data", data])
        #expect(statsStatus == 0 && stats.contains("archives       0"))
        let (removeStatus, _, remove) = try run(["remove-bucket", "--data", data, "--yes", "aaaaaaaaaaaaaaaaaaaaaaaaaa"])
        #expect(removeStatus == 1 && remove.contains("no archive"))

        // Choosing the store: one of --data and --postgres, a URL that looks like one, pg_dump for
        // PostgreSQL backups, a sentence when the database is out of reach.
        let (bothStatus, _, both) = try run(["stats", "--data", data, "--postgres", "postgresql://nobody@127.0.0.1:1/x"])
        #expect(bothStatus == 64 && both.contains("give one of them"))
        let (urlStatus, _, url) = try run(["serve", "--postgres", "db.example.org"])
        #expect(urlStatus == 64 && url.contains("starts with postgresql://"))
        let (dumpStatus, _, dump) = try run(["backup", "--postgres", "postgresql://nobody@127.0.0.1:1/x", "--to", data + "/b"])
        #expect(dumpStatus == 64 && dump.contains("pg_dump --format=custom"))
        let (downStatus, _, down) = try run(["stats", "--postgres", "postgresql://nobody:secret-word@127.0.0.1:1/x"])
        #expect(downStatus == 1 && down.hasPrefix("error: The archive database cannot be reached: "))
        #expect(!down.contains("secret-word"), "the password never appears in an error")
        let (fromStatus, _, from) = try run(["migrate-store", "--from", data, "--to", "postgres:postgresql://x@127.0.0.1:1/x"])
        #expect(fromStatus == 64 && from.contains("--from takes sqlite:DIR"))
        let (missingStatus, _, missing) = try run(["migrate-store", "--from", "sqlite:/nonexistent", "--to", "postgres:postgresql://x@127.0.0.1:1/x"])
        #expect(missingStatus == 64 && missing.contains("there is no SQLite archive at /nonexistent/archive.sqlite"))
    }
}
