import EfferentClient
import EfferentCore
import EfferentSystem
import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `efferent keys rotate` taking a handoff back, with the real binaries on a real service: killed
/// with SIGKILL at seeded random moments five times, every day still opens for the owner after
/// each kill and with the kit written before; then it finishes, every read signed with the old
/// handoff is refused with a sentence, the old editor queues nothing, and a new handoff reads it all.
@Suite(.serialized) struct KeyRotationTests {
    @Test func killedFiveTimesThenFinished() async throws {
        let work = NSTemporaryDirectory() + "efferent-rotate-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let export = work + "/export.zip"
        let generated = try CommandRunner(home: work + "/unused").run(["--days", "120", "--seed", "40", "--store", "--out", export],
                                                                     tool: "efferent-export-gen")
        #expect(generated.status == 0, "\(generated.stderr)")
        let archive = try RecoveryKitTests.Archive(export: export)
        let writer = archive.writer
        #expect(try writer.run(["keys", "backup", "--passphrase-file", archive.passphrase, "--out", archive.file("kit.txt")]).status == 0)
        #expect(try writer.run(["keys", "verify", "--passphrase-file", archive.passphrase, archive.file("kit.txt")]).status == 0)
        // A reader (and agent) with the handoff that is about to leak.
        let oldHandoff = archive.file("old-handoff.txt")
        try writer.run(["handoff"]).stdout.write(toFile: oldHandoff, atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: oldHandoff)
        let leaked = CommandRunner(home: archive.file("leaked"))
        #expect(try leaked.run(["connect", "--handoff", oldHandoff]).status == 0)
        let leakedSync = try leaked.run(["sync"])
        #expect(leakedSync.status == 0, "\(leakedSync.stderr)")
        let ownerSync = try writer.run(["sync"])
        #expect(ownerSync.status == 0)
        let days = try #require(Int(ownerSync.stdout.split(separator: " ").dropFirst().first ?? ""))
        let owner = try #require(try writer.run(["daily", "--metric", "steps", "--since", "2000-01-01", "--format", "csv"]).stdout.nilIfEmpty)

        var random = SplitMix64(seed: 40)
        var kills = 0, runs = 0
        while kills < 5 && runs < 40 {
            runs += 1
            let process = Process()
            process.executableURL = CommandRunner.products.appendingPathComponent("efferent")
            process.arguments = ["keys", "rotate"]
            var environment = ProcessInfo.processInfo.environment
            environment["EFFERENT_HOME"] = writer.home
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32(Double.random(in: 0.02...1.2, using: &random) * 1_000_000))
            if process.isRunning {
                Glibc.kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            // Whatever moment it died at, the owner reads every day, and the kit still opens it.
            let sync = try writer.run(["sync"])
            #expect(sync.status == 0, "after run \(runs): \(sync.stderr)")
            #expect(try writer.run(["daily", "--metric", "steps", "--since", "2000-01-01", "--format", "csv"]).stdout == owner, "after run \(runs)")
            let verified = try writer.run(["keys", "verify", "--passphrase-file", archive.passphrase, archive.file("kit.txt")])
            #expect(verified.status == 0, "after run \(runs): \(verified.stderr)")
        }
        #expect(kills == 5, "five rotations were killed before they finished (in \(runs) runs)")
        let finished = try writer.run(["keys", "rotate"])
        #expect(finished.status == 0 && finished.stdout.contains("of \(days) days sealed to the new reading key"), "\(finished.stdout) \(finished.stderr)")
        #expect(!FileManager.default.fileExists(atPath: writer.home + "/rotation.json"))

        // The old handoff is refused on every read route, with the sentence that says why.
        let old = try EfferentCore.Handoff(parsing: try String(contentsOfFile: oldHandoff, encoding: .utf8), checkingInstruction: false)
        let client = ArchiveClient(endpoint: old.endpoint, bucket: old.bucket, retry: .none)
        let readKey = old.readingKey.readKey
        let reads: [(String, () async throws -> Void)] = [
            ("listing", { _ = try await client.listingPage(readKey: readKey) }),
            ("one day", { _ = try await client.sealedDay(CalendarDay("2025-06-01")!, readKey: readKey) }),
            ("range", { _ = try await client.range(from: CalendarDay("2025-01-01")!, to: CalendarDay("2025-03-01")!, readKey: readKey) }),
            ("edits", { _ = try await client.edits(all: true, readKey: readKey) }),
        ]
        for (route, read) in reads {
            do {
                try await read()
                Issue.record("the old handoff still reads the \(route)")
            } catch let error as ArchiveError {
                #expect(error.status == 403 && error.description.contains("this reader's handoff was taken back"), "\(route): \(error)")
            }
        }
        let stale = try leaked.run(["sync"])
        #expect(stale.status != 0 && stale.stderr.contains("rotated its keys"), "\(stale.stderr)")
        #expect(try leaked.run(["connect", "--handoff", oldHandoff]).stderr.contains("its owner rotated the keys"))
        // The old editor queues nothing.
        try #"[{"op":"put","id":"agent:water:2025-06-01","metric":"dietaryWater","start":1748779200,"end":1748779200,"value":300,"unit":"mL"}]"#
            .write(toFile: archive.file("items.json"), atomically: true, encoding: .utf8)
        let write = try leaked.run(["write", "--items", archive.file("items.json")])
        #expect(write.status != 0 && write.stderr.contains("403"), "\(write.stderr)")

        // The new handoff reads every day; nothing needs sending again, and the daily check agrees.
        let newHandoff = archive.file("new-handoff.txt")
        try writer.run(["handoff"]).stdout.write(toFile: newHandoff, atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: newHandoff)
        let reader = CommandRunner(home: archive.file("laptop"))
        #expect(try reader.run(["connect", "--handoff", newHandoff]).status == 0)
        let synced = try reader.run(["sync"])
        #expect(synced.status == 0 && synced.stdout.hasPrefix("fetched \(days) days"), "\(days): \(synced.stdout) \(synced.stderr) (the owner's first sync: \(ownerSync.stdout))")
        let read = try reader.run(["daily", "--metric", "steps", "--since", "2000-01-01", "--format", "csv"])
        #expect(read.stdout == owner, "\(read.stdout.prefix(300)) against \(owner.prefix(300)); \(read.stderr)")
        let push = try writer.run(["push", "--check"])
        #expect(push.stdout.hasPrefix("sent 0 days") && push.stdout.contains("archive check: 0 days were missing"), "\(push.stdout)")

        // The kit written before is not current any more (status says so), though it still restores.
        #expect(try writer.run(["status"]).stdout.contains("holds keys this archive no longer uses"))
        let oldKit = try writer.run(["keys", "verify", "--passphrase-file", archive.passphrase, archive.file("kit.txt")])
        #expect(oldKit.status == 0 && oldKit.stdout.contains("keys     rotated "), "\(oldKit.stdout)")
        #expect(try writer.run(["keys", "backup", "--passphrase-file", archive.passphrase, "--out", archive.file("kit-2.txt")]).status == 0)
        #expect(try writer.run(["keys", "verify", "--passphrase-file", archive.passphrase, archive.file("kit-2.txt")]).status == 0)
        #expect(try writer.run(["status"]).stdout.contains("kit      verified "))
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
