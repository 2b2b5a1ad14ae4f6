import EfferentClient
import EfferentCore
import EfferentWriter
import Foundation

extension Keys {
    /// Left in the profile while a restore runs: a restore cut short is begun again, not refused.
    static let restoreMarker = "restore.unfinished"

    /// `keys restore` (and `init --recover`): the kit's archive on this empty machine, as its writer
    /// (the store rebuilt from the archive's own days) or as a reader.
    func restore(_ paths: [String], asReader: Bool) async throws -> Int32 {
        let profile = Profile.standard()
        let unfinished = profile.exists(Self.restoreMarker)
        if !unfinished, profile.exists(Profile.settingsName) || profile.exists(KeyFile.writerName) || profile.exists(KeyFile.readingName) {
            throw KeysError.profileInUse(profile.directory)
        }
        let check = try await check(paths)
        if unfinished {
            // Only this kit's own restore is begun again; anything else in the profile stays.
            if profile.exists(Profile.settingsName), (try? profile.settings())?.bucket != check.contents.bucket {
                throw KeysError.profileInUse(profile.directory)
            }
            for name in [Profile.settingsName, KeyFile.writerName, KeyFile.readingName, KeyFile.editorName, Profile.handoffName,
                         RotationJournal.fileName, SourceStore.fileName, SourceStore.fileName + "-wal", SourceStore.fileName + "-shm"]
            where profile.exists(name) {
                try FileManager.default.removeItem(atPath: profile.path(name))
            }
            note("a restore here was cut short: beginning it again")
        }
        try profile.prepare()
        try profile.write(Self.restoreMarker, Array("a restore from a kit is under way; run it again to finish\n".utf8))
        try KitInstall.install(check, into: profile, asReader: asReader)
        if asReader {
            try FileManager.default.removeItem(atPath: profile.path(Self.restoreMarker))
            print("this machine now reads archive \(check.contents.bucket) on \(check.endpoint) (\(check.days) days)")
            print("next: efferent sync")
            return 0
        }
        let context = try WriterContext(profile: profile, retry: Environment.retryPolicy, onRetry: { note($0) })
        let bar = ProgressBar(label: "restore", unit: "days")
        defer { bar.finish() }
        let report = try await ArchiveRestore.run(context, reading: check.reading, previous: check.previousReading) { done, total in
            if Environment.isTerminal { bar.update(done: done, total: total, bytes: 0) }
        }
        try FileManager.default.removeItem(atPath: profile.path(Self.restoreMarker))
        let megabytes = String(format: "%.1f", Double(report.bytes) / 1_000_000)
        print("restored archive \(check.contents.bucket) on \(check.endpoint): \(report.days) days, \(report.records) records and "
              + "\(report.totals) totals read back from the archive (\(megabytes) MB sealed, \(report.requests) requests)")
        print("this machine is the archive's writer again: days are cut in \(context.settings.timeZone); efferent push sends nothing until something changes")
        print("not recovered: each phone's pairing (its token was on the lost machine): pair it again with efferent receive pair --url URL; "
              + "the history it sends again meets what the archive holds and counts nothing twice")
        print("not recovered: agents' ids for the records they wrote: those records are here, but an agent's later edit of one adds a record "
              + "rather than replacing it")
        print("not recovered: which export each record came from: a record restored here leaves with a deletion in Health only once "
              + "an export imported here has held it")
        if report.sealedToPrevious > 0 || check.rotatedSince != nil {
            print("a key rotation the lost machine began is unfinished: run efferent keys rotate to finish it")
        }
        print("next: efferent import and efferent push as before; the kit you restored from stays this archive's kit")
        return 0
    }
}
