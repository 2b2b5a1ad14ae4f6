import EfferentSQLite
import EfferentSystem
import EfferentCore
import EfferentHTTP
@testable import EfferentServer
import EfferentTestSupport
import Foundation
import Testing

/// The operator's commands through the real binary: they refuse a folder with no archive store
/// instead of creating one, list archives, ask before deleting, and back up in bounded time under
/// steady writes to a file that appears under its name only when whole.
@Suite(.serialized) struct OperatorCommandTests {
    static func temporaryDirectory() -> String { NSTemporaryDirectory() + "efferent-operator-" + UUID().uuidString }

    @Test func commandsRefuseAFolderWithNoStoreAndCreateNothing() throws {
        let empty = Self.temporaryDirectory()
        for arguments in [["stats"], ["list"], ["backup", "--to", empty + ".backup"], ["remove-bucket", "--yes", String(repeating: "a", count: 26)]] {
            let (status, stdout, stderr) = try ServerProcess.run(arguments + ["--data", empty])
            #expect(status == 64, "\(arguments)")
            #expect(stdout.isEmpty)
            #expect(stderr == "error: there is no archive store in \(empty) (archive.sqlite); --data names the directory given to serve --data.\n")
        }
        #expect(!FileManager.default.fileExists(atPath: empty), "nothing was created where --data pointed")
        #expect(!FileManager.default.fileExists(atPath: empty + ".backup"))
    }

    /// The settings file (the Debian package's /etc/efferent-server/efferent-server.conf, named
    /// here by EFFERENT_SERVER_CONFIG) gives every command what its command line leaves out: the
    /// operator commands find the store without --data, serve takes its options from it, a flag
    /// or EFFERENT_POSTGRES_URL wins, and a wrong line is refused with its number.
    @Test func theSettingsFileFillsWhatTheCommandLineLeavesOut() throws {
        let work = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let data = work + "/data", config = work + "/efferent-server.conf"
        try "# settings\ndata = \(data)\n\nlisten = 127.0.0.1:0\nadmission = open\nrate-limits = off\n".write(toFile: config, atomically: true, encoding: .utf8)
        let settings = ["EFFERENT_SERVER_CONFIG": config]

        let (absent, _, noStore) = try ServerProcess.run(["stats"], environment: settings)
        #expect(absent == 64 && noStore.contains("no archive store in \(data) "), "\(noStore)")
        #expect(try ServerProcess.run(["invite"], environment: settings).status == 0)
        #expect(FileManager.default.fileExists(atPath: data + "/archive.sqlite"), "invite without --data used the file's data")
        let (statsStatus, stats, _) = try ServerProcess.run(["stats"], environment: settings)
        #expect(statsStatus == 0 && stats.contains("archives       0"))
        let (flagStatus, _, flag) = try ServerProcess.run(["stats", "--data", work + "/elsewhere"], environment: settings)
        #expect(flagStatus == 64 && flag.contains("no archive store in \(work)/elsewhere "), "the flag wins")
        let (urlStatus, _, url) = try ServerProcess.run(["stats"], environment: settings.merging(["EFFERENT_POSTGRES_URL": "postgresql://nobody@127.0.0.1:1/x"]) { $1 })
        #expect(urlStatus == 1 && url.contains("cannot be reached"), "EFFERENT_POSTGRES_URL replaces the file's store: \(url)")

        // serve with nothing but the file: its listen address, admission and store.
        let process = Process()
        process.executableURL = ServerProcess.binary
        process.arguments = ["serve"]
        process.environment = ProcessInfo.processInfo.environment.merging(settings) { $1 }
        let log = work + "/serve.log"
        _ = try LoopbackPort.launch(process, log: log)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let started = try String(contentsOfFile: log, encoding: .utf8)
        #expect(started.contains("\"admission\":\"open\"") && started.contains("\"data\":\"\(data)"), "\(started)")

        try "data = \(data)\nlisen = 127.0.0.1:1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (typoStatus, _, typo) = try ServerProcess.run(["stats"], environment: settings)
        #expect(typoStatus == 64 && typo.contains("line 2 of \(config): 'lisen' is not an option of efferent-server serve"), "\(typo)")
        try "data = \(data)\npostgres = postgresql://nobody@127.0.0.1:1/x\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try ServerProcess.run(["stats"], environment: settings).stderr.contains("keep one of them"))
        let (missingStatus, _, missing) = try ServerProcess.run(["stats"], environment: ["EFFERENT_SERVER_CONFIG": work + "/none.conf"])
        #expect(missingStatus == 64 && missing.contains("cannot read the settings file \(work)/none.conf"))
    }

    /// Run as root against a data directory that belongs to another user (the package's service
    /// user), an operator command acts as that user, so what it creates stays that user's. Only
    /// root can switch users; elsewhere the command runs as itself, as before.
    @Test func rootActsAsTheOwnerOfTheDataDirectory() throws {
        let data = Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let owner: uid_t = geteuid() == 0 ? 65534 : geteuid()
        if geteuid() == 0 { #expect(FileMode.changeOwner(of: data, user: 65534, group: 65534)) }
        #expect(try ServerProcess.run(["invite", "--data", data]).status == 0)
        let (status, stats, _) = try ServerProcess.run(["stats", "--data", data])
        #expect(status == 0 && stats.contains("archives       0"))
        for name in (try FileManager.default.contentsOfDirectory(atPath: data)) {
            let found = FileMode.owner(of: data + "/" + name)
            #expect(found == owner, "\(name) belongs to \(found.map(String.init) ?? "nobody")")
        }
    }

    /// An archive file left readable by others (from before the umask was 077) is owner-only once
    /// the service starts, and a new one is created so.
    @Test func theServiceKeepsItsFilesToItsOwner() throws {
        let data = Self.temporaryDirectory()
        #expect(try ServerProcess.run(["invite", "--data", data]).status == 0)
        #expect(FileMode.permissions(of: data + "/archive.sqlite").map { $0 & 0o777 } == 0o600)
        try FileMode.set(0o644, on: data + "/archive.sqlite")
        let server = try ServerProcess(data: data)
        #expect(FileMode.permissions(of: data + "/archive.sqlite").map { $0 & 0o777 } == 0o600)
        server.terminate()
    }

    @Test func listShowsEveryArchiveAndRemoveAsksFirst() async throws {
        let data = Self.temporaryDirectory()
        let server = try ServerProcess(data: data)
        let writer = StandInWriter(), other = StandInWriter()
        #expect(try await Loopback.send(writer.claim(), port: server.port).status == 201)
        #expect(try await Loopback.send(other.claim(), port: server.port).status == 201)
        #expect(try await Loopback.send(try writer.upload(days(from: "2026-01-30", count: 3)), port: server.port).status == 200)

        let (status, listed, _) = try ServerProcess.run(["list", "--data", data])
        #expect(status == 0)
        let lines = listed.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("archive") && lines[0].hasSuffix("pending edits"))
        let row = try #require(lines.first { $0.hasPrefix(writer.bucket.rawValue) })
        let columns = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(columns[1] == "3" && columns[3] == "2026-01-30" && columns[4] == "2026-02-01" && columns.last == "0", "\(row)")
        #expect(columns[5].hasSuffix("Z"), "the last upload as an ISO instant: \(row)")
        let otherRow = try #require(lines.first { $0.hasPrefix(other.bucket.rawValue) })
        #expect(otherRow.contains(" 0 ") && otherRow.contains(" - "), "an archive with no days yet: \(otherRow)")

        let id = writer.bucket.rawValue
        let (noTerminal, _, refusal) = try ServerProcess.run(["remove-bucket", "--data", data, id])
        #expect(noTerminal == 64 && refusal.contains("add --yes"))
        let (removed, said, _) = try ServerProcess.run(["remove-bucket", "--data", data, "--yes", id])
        let bytes = try #require(Int(columns[2]))
        #expect(removed == 0 && said == "removed \(id): 3 days, \(bytes) bytes\n")
        let (after, relisted, _) = try ServerProcess.run(["list", "--data", data])
        #expect(after == 0 && !relisted.contains(id) && relisted.contains(other.bucket.rawValue))
        let (again, _, gone) = try ServerProcess.run(["remove-bucket", "--data", data, "--yes", id])
        #expect(again == 1 && gone.contains("there is no archive \(id) here"))
        server.terminate()
    }

    /// One small upload every 20 ms for the whole backup of a 50 MB archive: the online backup API
    /// restarted on every commit and never finished; the copy from one read transaction does.
    @Test func backupFinishesUnderSteadyWritesAndIsOwnerOnly() async throws {
        let data = Self.temporaryDirectory()
        let server = try ServerProcess(data: data)
        let writer = StandInWriter()
        #expect(try await Loopback.send(writer.claim(), port: server.port).status == 201)
        var random = SplitMix64(seed: 5)
        let block = (0..<10_000).flatMap { _ in let word = random.next(); return (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) } }
        for month in 0..<20 {
            // Sealed days the service stores as they are: 31 of 80 KB a frame.
            let batch = days(from: day("2000-01-01").adding(days: month * 31).description, count: 31)
            let frame = try Frame.pack(batch.map { Frame.Day(day: $0, sealed: block) })
            #expect(try await Loopback.send(writer.upload(frame, days: batch), port: server.port).status == 200)
        }
        let port = server.port
        // The uploads go from a thread of their own, each on a connection of its own: on the
        // cooperative pool they waited behind whatever other suites block it with (under the
        // thread sanitizer, none was acknowledged in 10 s), and this test's own thread blocks
        // for the backup. Stopped by a flag.
        let stopping = StopFlag()
        let acknowledged = Tally()
        let stopped = Signal()
        Thread {
            while !stopping.isSet {
                let one = [day("2010-01-01").adding(days: acknowledged.count % 500)]
                if let request = try? writer.upload(one), Self.status(of: request, port: port) == 200 { acknowledged.add() }
                usleep(20_000)
            }
            stopped.fire()
        }.start()
        // The backup starts once uploads are flowing, and only those acknowledged while it runs count.
        #expect(try await eventually { acknowledged.count > 0 }, "the steady uploads began")
        let file = Self.temporaryDirectory() + ".sqlite"
        let before = acknowledged.count
        let (status, said, err) = try ServerProcess.run(["backup", "--data", data, "--to", file])
        let during = acknowledged.count - before
        stopping.set()
        await stopped.wait()
        #expect(status == 0, "\(err)")
        #expect(said.hasPrefix("backed up to \(file): ") && said.contains(" bytes in "))
        print("backup under steady writes (\(during) uploads acknowledged while it ran): \(said.split(separator: ";").first ?? "")")
        #expect(during > 0, "uploads kept being acknowledged while the backup ran")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600, "the backup is the operator's alone")
        let copy = try SQLiteConnection(path: file, readOnly: true)
        #expect(try copy.statement("PRAGMA integrity_check").rows { $0.text(0) } == ["ok"])
        let stored = try copy.statement("SELECT count(*) FROM day").first { $0.int64(0) } ?? 0
        #expect(stored >= 20 * 31)
        let (existing, _, refused) = try ServerProcess.run(["backup", "--data", data, "--to", file])
        #expect(existing == 64 && refused.contains("already exists"))
        server.terminate()
    }

    /// Sends `request` on a connection of its own and waits for its status, on the calling thread.
    static func status(of request: HTTPRequest, port: Int) -> Int? {
        guard let connection = try? RawHTTPConnection(port: port) else { return nil }
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "Content-Length: \(request.body.count)\r\n"
        if request.header("content-type") == nil { head += "Content-Type: application/octet-stream\r\n" }
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        connection.send(Array((head + "\r\n").utf8) + request.body)
        return try? connection.readResponse().status
    }

    /// A backup killed at any moment leaves nothing under the name asked for, or a whole copy;
    /// never a file the next run would refuse to replace with a good one.
    @Test func aKilledBackupLeavesNoFileUnderItsName() async throws {
        let data = Self.temporaryDirectory()
        let server = try ServerProcess(data: data)
        let writer = StandInWriter()
        #expect(try await Loopback.send(writer.claim(), port: server.port).status == 201)
        for month in 0..<60 {
            let batch = days(from: day("2000-01-01").adding(days: month * 31).description, count: 31)
            #expect(try await Loopback.send(try writer.upload(batch), port: server.port).status == 200)
        }
        server.terminate()
        var seed = SplitMix64(seed: 11)
        for attempt in 0..<6 {
            let file = Self.temporaryDirectory() + ".sqlite"
            let backup = Process()
            backup.executableURL = ServerProcess.binary
            backup.arguments = ["backup", "--data", data, "--to", file]
            backup.standardOutput = FileHandle.nullDevice
            backup.standardError = FileHandle.nullDevice
            try backup.run()
            usleep(UInt32(seed.next() % 60_000))
            kill(backup.processIdentifier, SIGKILL)
            backup.waitUntilExit()
            if FileManager.default.fileExists(atPath: file) {
                let copy = try SQLiteConnection(path: file, readOnly: true)
                #expect(try copy.statement("PRAGMA integrity_check").rows { $0.text(0) } == ["ok"], "attempt \(attempt)")
            } else {
                let (status, _, err) = try ServerProcess.run(["backup", "--data", data, "--to", file])
                #expect(status == 0, "a second run after a killed one: \(err)")
            }
        }
    }
}

/// A count kept from a task and read from the test.
private final class Tally: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add() { value.withLock { $0 += 1 } }
}

/// A stop a loop in another task reads, set once.

private final class StopFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
