import EfferentCrypto
import Foundation
import Testing
@testable import EfferentSecretSharing

/// libgfshare through its binding, and against Debian's own `gfsplit` and `gfcombine` (package
/// libgfshare-bin), which write share n of FILE as `FILE.nnn`.
@Suite struct SecretSharingTests {
    let secret = SecretBytes((0..<32).map { UInt8(($0 * 37 + 11) & 0xFF) })

    @Test func everyPairOfThreeRecombinesAndOneAloneDoesNot() throws {
        let shares = try SecretSharing.split(secret, threshold: 2, numbers: [1, 2, 3])
        #expect(shares.map(\.number) == [1, 2, 3])
        for (a, b) in [(0, 1), (0, 2), (1, 2), (2, 0)] {
            #expect(try SecretSharing.combine([shares[a], shares[b]]) == secret)
        }
        // One share is a point of a random line: it gives back other bytes, and no share equals the secret.
        for share in shares {
            #expect(try SecretSharing.combine([share]) != secret)
            #expect(share.bytes != secret.revealed())
        }
        // Two splits of one secret share nothing: the coefficients are fresh each time.
        #expect(try SecretSharing.split(secret, threshold: 2, numbers: [1, 2, 3])[0].bytes != shares[0].bytes)
    }

    @Test func threeOfFiveNeedsThree() throws {
        let shares = try SecretSharing.split(secret, threshold: 3, numbers: [1, 2, 3, 4, 5])
        #expect(try SecretSharing.combine([shares[4], shares[0], shares[2]]) == secret)
        #expect(try SecretSharing.combine([shares[4], shares[0]]) != secret)
    }

    @Test func refusesWhatCannotBeSplitOrCombined() throws {
        #expect(throws: SecretSharingError.badNumbers) { try SecretSharing.split(secret, threshold: 2, numbers: [0, 1, 2]) }
        #expect(throws: SecretSharingError.badNumbers) { try SecretSharing.split(secret, threshold: 2, numbers: [1, 1, 2]) }
        #expect(throws: SecretSharingError.badThreshold(4, 3)) { try SecretSharing.split(secret, threshold: 4, numbers: [1, 2, 3]) }
        let shares = try SecretSharing.split(secret, threshold: 2, numbers: [1, 2, 3])
        #expect(throws: SecretSharingError.unequalLengths) {
            try SecretSharing.combine([shares[0], SecretSharing.Share(number: 2, bytes: Array(shares[1].bytes.prefix(8)))])
        }
        #expect(throws: SecretSharingError.badNumbers) { try SecretSharing.combine([shares[0], shares[0]]) }
    }

    /// Shares made here combine with `gfcombine`, and shares `gfsplit` made combine here.
    @Test func interoperatesWithDebiansTools() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gfshare-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for tool in ["gfsplit", "gfcombine"] {
            #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"),
                    "Debian's libgfshare-bin must be installed (scripts/test installs it)")
        }
        // Ours → gfcombine.
        let shares = try SecretSharing.split(secret, threshold: 2, numbers: [1, 2, 3])
        for share in shares {
            try Data(share.bytes).write(to: URL(fileURLWithPath: folder + "/ours.\(String(format: "%03d", share.number))"))
        }
        for pair in [(1, 3), (2, 3), (1, 2)] {
            let out = folder + "/combined-\(pair.0)\(pair.1)"
            try run("/usr/bin/gfcombine", ["-o", out, folder + String(format: "/ours.%03d", pair.0), folder + String(format: "/ours.%03d", pair.1)])
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == secret.revealed())
        }
        // gfsplit → ours.
        try Data(secret.revealed()).write(to: URL(fileURLWithPath: folder + "/secret"))
        try run("/usr/bin/gfsplit", ["-n", "2", "-m", "3", folder + "/secret", folder + "/theirs"])
        let made = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("theirs.") }.sorted()
        #expect(made.count == 3)
        let theirs = try made.map { name in
            SecretSharing.Share(number: UInt8(name.dropFirst("theirs.".count))!, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))))
        }
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            #expect(try SecretSharing.combine([theirs[a], theirs[b]]) == secret)
        }
        #expect(try SecretSharing.combine([theirs[0]]) != secret)
    }

    func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) \(arguments)")
    }
}
