import EfferentSystem
import Foundation

/// Issue 40: the recovery kit and key rotation on a generated decade through the release
/// binaries — a kit written and verified, a writer restored from it into an empty profile (its
/// store rebuilt from the archive's days) and its first push, every day re-sealed by `keys
/// rotate` — each beside a reference measured in the same run (the decade's first push, which
/// uploads every day once).
enum KeysBench {
    static func run(years: Int = 10) async throws {
        let work = NSTemporaryDirectory() + "efferent-keys-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let (archive, _, _, _) = try await DecadeArchive.generated(years: years, in: work)
        defer { archive.server.stop() }
        let phone = work + "/phone"
        let passphrase = work + "/passphrase"
        try "lumen-cradle-oyster-granite-meadow\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
        try FileMode.set(0o600, on: passphrase)
        let backup = try await Child.run("efferent", ["keys", "backup", "--passphrase-file", passphrase, "--out", work + "/kit.txt"], home: phone)
        let verify = try await Child.run("efferent", ["keys", "verify", "--passphrase-file", passphrase, work + "/kit.txt"], home: phone)
        let restored = work + "/restored"
        let restore = try await Child.run("efferent", ["init", "--recover", work + "/kit.txt", "--passphrase-file", passphrase], home: restored)
        let restoredPush = try await Child.run("efferent", ["push"], home: restored)
        let rotate = try await Child.run("efferent", ["keys", "rotate"], home: phone)
        let after = try await Child.run("efferent", ["push", "--check"], home: phone)
        let words = (try String(contentsOfFile: work + "/kit.txt", encoding: .utf8)).split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0 != "Words:" }.dropFirst().prefix { !$0.isEmpty }
        let wordCount = words.flatMap { $0.split(separator: " ").filter { $0.first?.isLetter == true } }.count

        Measure.header("Recovery kit and key rotation: a generated \(years)-year archive through the release binaries on loopback")
        Measure.row("kit's typed form", "\(wordCount) words in \(words.count) lines", "", ratio: nil, goal: "≤ 24 words or 8 lines")
        Measure.row("keys backup (Argon2id MODERATE) / RSS", Measure.format(backup.seconds, "s", digits: 2) + " / "
                    + Measure.format(backup.peakMiB, "MiB", digits: 0), "", ratio: nil, goal: "")
        Measure.row("keys verify / RSS", Measure.format(verify.seconds, "s", digits: 2) + " / " + Measure.format(verify.peakMiB, "MiB", digits: 0),
                    "", ratio: nil, goal: "")
        Measure.row("restore a writer from the kit (init --recover)", Measure.format(restore.seconds, "s", digits: 1),
                    "first push " + Measure.format(archive.firstPush.seconds, "s", digits: 1), ratio: restore.seconds / archive.firstPush.seconds,
                    goal: "≤ 60 s")
        Measure.row("restore peak RSS", Measure.format(restore.peakMiB, "MiB", digits: 0),
                    "first push " + Measure.format(archive.firstPush.peakMiB, "MiB", digits: 0), ratio: restore.peakMiB / archive.firstPush.peakMiB,
                    goal: "≤ 150 MB")
        print("    \(restore.output.split(separator: "\n").first { $0.hasPrefix("restored ") } ?? "")")
        Measure.row("first push after the restore", Measure.format(restoredPush.seconds, "s", digits: 2),
                    restoredPush.output.trimmed.replacingOccurrences(of: "\n", with: "; "), ratio: nil, goal: "sends 0 days")
        Measure.row("keys rotate, every day re-sealed", Measure.format(rotate.seconds, "s", digits: 1),
                    "first push " + Measure.format(archive.firstPush.seconds, "s", digits: 1), ratio: rotate.seconds / archive.firstPush.seconds,
                    goal: "≤ 120 s")
        Measure.row("keys rotate peak RSS", Measure.format(rotate.peakMiB, "MiB", digits: 0),
                    "first push " + Measure.format(archive.firstPush.peakMiB, "MiB", digits: 0), ratio: rotate.peakMiB / archive.firstPush.peakMiB,
                    goal: "bounded")
        print("    \(rotate.output.split(separator: "\n").first ?? "")")
        Measure.row("push --check after the rotation", Measure.format(after.seconds, "s", digits: 2), after.output.trimmed.replacingOccurrences(of: "\n", with: "; "),
                    ratio: nil, goal: "sends 0 days")
    }
}
