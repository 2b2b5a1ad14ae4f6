import EfferentClient
import EfferentCore
import EfferentRecovery
import Foundation

/// Puts a proven kit's keys and settings into an empty profile: a writer that carries on where
/// the lost machine stopped, or a reader of the archive (`--reader`). The writer's store is
/// rebuilt from the archive's own days afterwards (`ArchiveRestore`).
public enum KitInstall {
    /// Writes the profile; refuses one that already holds an archive.
    public static func install(_ check: KitCheck, into profile: Profile, asReader: Bool) throws {
        if profile.exists(Profile.settingsName) || profile.exists(KeyFile.writerName) || profile.exists(KeyFile.readingName) {
            throw KeysError.profileInUse(profile.directory)
        }
        let contents = check.contents
        try profile.prepare()
        if !asReader { try profile.write(KeyFile.writerName, KeyFile.encodeWriterKey(contents.writer)) }
        try profile.write(KeyFile.readingName, KeyFile.encode(check.reading))
        try profile.write(KeyFile.editorName, KeyFile.encode(check.editor))
        // A rotation the lost machine left half-done: its new keys seal and sign, and the day it
        // replaced still opens; `efferent keys rotate` finishes it (the restore says when needed).
        if !asReader, let previous = check.previousReading, check.rotatedSince != nil {
            try profile.saveRotationJournal(RotationJournal(reading: check.reading, editor: check.editor, previousReading: previous,
                                                            started: check.rotatedSince ?? 0))
        }
        let handoff = try Handoff(endpoint: check.endpoint, bucket: contents.bucket, readingKey: check.reading, editorKey: check.editor)
        try profile.write(Profile.handoffName, Array((handoff.text + "\n").utf8))
        // The settings last: their presence says every key above is on disk.
        try profile.save(ProfileSettings(endpoint: check.endpoint, bucket: contents.bucket, timeZone: contents.timeZone,
                                         hourlyFrom: asReader ? nil : contents.hourlyFrom, role: asReader ? "reader" : "writer",
                                         timeZonePinned: contents.timeZonePinned))
        if !asReader, check.isCurrent {
            try KitReminder.recordVerified(profile, keys: contents.keysFingerprint)
        }
    }
}
