import EfferentClient
import EfferentCore
import EfferentSystem
import EfferentTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The recovery kit as an owner uses it, with the real binaries, a real service on loopback and
/// real SQLite files: written, verified (from its file, its QR text, its words alone, two sheets of
/// a split), refused with one sentence for every way it can be wrong, and kept current across a
/// rotation that is killed five times before it finishes.
@Suite(.serialized) struct RecoveryKitTests {
    /// A service (open admission) and a writer of the small real sample, pushed; a passphrase file.
    struct Archive {
        let work: String
        let server: ServerProcess
        let writer: CommandRunner
        let passphrase: String
        /// The first push's result: the first command to remind the owner of the kit.
        let firstPush: CommandRunner.Result

        init(export: String? = nil) throws {
            work = NSTemporaryDirectory() + "efferent-kit-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            server = try ServerProcess(data: work + "/service")
            writer = CommandRunner(home: work + "/phone")
            passphrase = work + "/passphrase"
            try "sage-orbit-lantern-mosaic-tundra\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
            try FileMode.set(0o600, on: passphrase)
            let source = export ?? WholeLoopTests.samples.appendingPathComponent("apple-health-parser/export.zip").path
            var last: CommandRunner.Result?
            for arguments in [["init", "--server", server.url, "--time-zone", "Europe/Amsterdam"], ["import", source], ["push"]] {
                let result = try writer.run(arguments)
                guard result.status == 0 else { throw CommandRunner.SetupFailure(step: arguments[0], stderr: result.stderr) }
                last = result
            }
            firstPush = last!
        }

        func file(_ name: String) -> String { work + "/" + name }
        func remove() { try? FileManager.default.removeItem(atPath: work) }
    }

    /// The files of a folder with their sizes and bytes: what "nothing was written" compares.
    static func snapshot(_ folder: String) -> [String: Data] {
        var files = [String: Data]()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name)
        }
        return files
    }

    @Test func writtenVerifiedAndRefusedWithOneSentence() throws {
        let archive = try Archive()
        defer { archive.remove() }
        let writer = archive.writer
        // Before any kit: the first push reminded the owner; status says so, and does not remind
        // again the same day (status and push share the reminder).
        #expect(archive.firstPush.stderr.contains("No recovery kit of this archive has been verified"), "\(archive.firstPush.stderr)")
        let before = try writer.run(["status"])
        #expect(before.stdout.contains("kit      none verified yet") && !before.stderr.contains("No recovery kit"), "\(before.stdout) \(before.stderr)")
        #expect(!(try writer.run(["push"])).stderr.contains("No recovery kit"), "reminded once a day, not at every command")

        let kit = archive.file("kit.txt")
        let backup = try writer.run(["keys", "backup", "--passphrase-file", archive.passphrase, "--out", kit])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("its passphrase is the one you gave") && !backup.stdout.contains("sage-orbit"))
        for file in [kit, archive.file("kit.html")] {
            #expect(FileMode.permissions(of: file).map { $0 & 0o777 } == 0o600, "\(file) is the owner's only")
        }
        let text = try String(contentsOfFile: kit, encoding: .utf8)
        let words = text.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Words:" }.dropFirst().prefix { !$0.isEmpty }
        #expect(words.count == 6 && words.flatMap { $0.split(separator: " ").filter { $0.first?.isLetter == true } }.count == 24,
                "24 words in 6 lines: \(words)")
        #expect(try writer.run(["keys", "backup", "--passphrase-file", archive.passphrase, "--out", kit]).stderr.contains("is never written over"))

        let verified = try writer.run(["keys", "verify", "--passphrase-file", archive.passphrase, kit])
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stdout.contains("writer   the kit's writer key is the archive's owner") && verified.stdout.contains("opens with the kit's reading key"))
        #expect(!verified.stdout.contains("sage-orbit") && !verified.stderr.contains("sage-orbit"), "no secret printed")
        #expect(try writer.run(["status"]).stdout.contains("kit      verified "))

        // Every way a kit can be wrong: one sentence, a non-zero exit, nothing written.
        let profile = Self.snapshot(writer.home)
        let wrong = archive.file("wrong-passphrase")
        try "sage-orbit-lantern-mosaic-tundrA\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: wrong)
        let refusals: [(String, [String], String)] = [
            ("a wrong passphrase", ["--passphrase-file", wrong, kit], "The passphrase does not open this kit"),
            ("a passphrase file others can read", ["--passphrase-file", archive.file("open-passphrase"), kit], "chmod 600"),
            ("no kit there", ["--passphrase-file", archive.passphrase, archive.file("nowhere.txt")], "There is no kit file at"),
        ]
        try "x\n".write(toFile: archive.file("open-passphrase"), atomically: true, encoding: .utf8)
        try FileMode.set(0o644, on: archive.file("open-passphrase"))
        // A line with a typo: word 7 (line 2) has a letter mistyped, with no QR text to fall back
        // on. (A word cut short after four letters is no typo: BIP-39 words are known by those.)
        let allWords = words.flatMap { $0.split(separator: " ").filter { $0.first?.isLetter == true }.map(String.init) }
        var typo = allWords
        typo[6] = String(typo[6].prefix(1)) + "q" + String(typo[6].dropFirst(2))
        try ("Service: \(archive.server.url)\n" + typo.joined(separator: " ")).write(toFile: archive.file("typo.txt"), atomically: true, encoding: .utf8)
        // The QR code's text cut short.
        let qr = try #require(text.split(separator: "\n").first { $0.hasPrefix("EFFERENT-KIT:") })
        try String(qr.dropLast(25)).write(toFile: archive.file("cut.txt"), atomically: true, encoding: .utf8)
        // Another archive's kit, checked on this machine.
        let other = CommandRunner(home: archive.file("other"))
        #expect(try other.run(["init", "--server", archive.server.url, "--time-zone", "UTC"]).status == 0)
        #expect(try other.run(["import", WholeLoopTests.samples.appendingPathComponent("apple-health-parser/export.zip").path]).status == 0)
        #expect(try other.run(["push"]).status == 0)
        #expect(try other.run(["keys", "backup", "--passphrase-file", archive.passphrase, "--out", archive.file("other-kit.txt")]).status == 0)
        for (what, arguments, sentence) in refusals + [
            ("a line with a typo", ["--passphrase-file", archive.passphrase, archive.file("typo.txt")], "line 2 of the sheet"),
            ("a cut QR text", ["--passphrase-file", archive.passphrase, archive.file("cut.txt")], "The kit's QR code text is damaged"),
            ("another archive's kit", ["--passphrase-file", archive.passphrase, archive.file("other-kit.txt")], "it is another archive's kit"),
        ] {
            let result = try writer.run(["keys", "verify"] + arguments)
            #expect(result.status != 0, "\(what)")
            let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("opening the kit") }
            #expect(lines.count == 1 && lines[0].hasPrefix("error: ") && result.stderr.contains(sentence), "\(what): \(result.stderr)")
            #expect(Self.snapshot(writer.home) == profile, "\(what): nothing written")
        }
        // A restore refused for the same reasons writes nothing either, not even the profile folder.
        let fresh = CommandRunner(home: archive.file("fresh"))
        let restore = try fresh.run(["keys", "restore", "--reader", "--passphrase-file", wrong, kit])
        #expect(restore.status != 0 && restore.stderr.contains("The passphrase does not open this kit"))
        #expect(!FileManager.default.fileExists(atPath: archive.file("fresh")))
    }

    @Test func theWordsAloneAndEveryPairOfASplit() throws {
        let archive = try Archive()
        defer { archive.remove() }
        let writer = archive.writer
        let split = try writer.run(["keys", "backup", "--split", "2-of-3", "--out", archive.file("family.txt")])
        #expect(split.status == 0, "\(split.stderr)")
        #expect(split.stdout.contains("in 3 sheets, any 2 of which recover") && split.stdout.contains("printed on every sheet"))
        let sheets = (1...3).map { archive.file("family-sheet-\($0)-of-3.txt") }
        for sheet in sheets { #expect(FileManager.default.fileExists(atPath: sheet) && FileManager.default.fileExists(atPath: sheet.replacingOccurrences(of: ".txt", with: ".html"))) }
        // Any two sheets recover without the owner: their printed passphrase opens the kit.
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let result = try writer.run(["keys", "verify", sheets[a], sheets[b]])
            #expect(result.status == 0, "sheets \(a + 1) and \(b + 1): \(result.stderr)")
        }
        for sheet in sheets {
            let alone = try writer.run(["keys", "verify", sheet])
            #expect(alone.status != 0 && alone.stderr.contains("one sheet alone reveals nothing"), "\(alone.stderr)")
        }
        // Two sheets typed back as words, each with its Sheet line, and the service's copy of the record.
        for (index, sheet) in sheets.prefix(2).enumerated() {
            let text = try String(contentsOfFile: sheet, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let typed = lines.filter { $0.hasPrefix("Sheet:") || $0.hasPrefix("Passphrase:") }
                + lines.drop { $0 != "Words:" }.dropFirst().prefix { !$0.isEmpty }
            try typed.joined(separator: "\n").write(toFile: archive.file("typed-\(index).txt"), atomically: true, encoding: .utf8)
        }
        let typed = try writer.run(["keys", "verify", "--server", archive.server.url, archive.file("typed-0.txt"), archive.file("typed-1.txt")])
        #expect(typed.status == 0 && typed.stdout.contains("the sealed record came from the service"), "\(typed.stdout) \(typed.stderr)")
        // Words without the service's address say what to add.
        let noServer = try writer.run(["keys", "verify", archive.file("typed-0.txt"), archive.file("typed-1.txt")])
        #expect(noServer.status != 0 && noServer.stderr.contains("add --server URL"), "\(noServer.stderr)")
    }
}
