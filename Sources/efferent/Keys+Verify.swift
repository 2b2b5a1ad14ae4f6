import EfferentClient
import EfferentCore
import EfferentCrypto
import EfferentRecovery
import EfferentWriter
import Foundation

extension Keys {
    /// The kit `paths` hold, opened with its passphrase and proven against the service.
    func check(_ paths: [String]) async throws -> KitCheck {
        let pieces = try KitPieces.assemble(try Self.inputs(paths))
        let passphrase: String
        if let printed = pieces.printedPassphrase, passphraseFile == nil {
            passphrase = printed
        } else if let given = try givenPassphrase(prompt: "The kit's passphrase: "), !given.isEmpty {
            passphrase = given
        } else {
            throw KeysCommandError.noPassphrase
        }
        note("opening the kit (Argon2id over 256 MiB: a second or two)…")
        return try await KitCheck.run(pieces, passphrase: SecretBytes(Array(passphrase.utf8)), server: server, retry: Environment.retryPolicy,
                                      onRetry: { note($0) })
    }

    /// `keys verify`: every part of the kit proven, nothing secret printed.
    func verify(_ paths: [String]) async throws -> Int32 {
        let profile = Profile.standard()
        let check = try await check(paths)
        let contents = check.contents
        // On a machine that holds an archive, the kit must be that archive's.
        if profile.exists(Profile.settingsName), let settings = try? profile.settings(), settings.bucket != contents.bucket {
            throw KitCheckError.otherArchive(kit: contents.bucket, profile: settings.bucket)
        }
        print("kit      opens with its passphrase" + (check.recordFromService ? " (the sealed record came from the service: only words were given)" : ""))
        print("archive  \(contents.bucket) on \(check.endpoint), \(check.days) days")
        print("writer   the kit's writer key is the archive's owner on the service")
        if let day = check.dayOpened {
            print("day      \(day), fetched from the service, opens with the kit's reading key (\(check.eventsOpened) events)")
        } else {
            print("day      the archive holds no day yet, so none could be opened; verify again after the first push")
        }
        if let rotated = check.rotatedSince {
            print("keys     rotated \(KitReminder.day(rotated)), after this kit was written: it still restores (the service keeps the new keys sealed to its writer key), but a kit of the new keys holds them itself")
            note("write a kit of the current keys: efferent keys backup, then efferent keys verify FILE")
            return 0
        }
        if profile.exists(KeyFile.writerName), let writer = try? profile.writerKey() {
            guard writer.publicKey == contents.writer.publicKey else { throw KitCheckError.notOwner(contents.bucket, check.endpoint) }
            if try contents.keysFingerprint == KitReminder.currentKeys(profile) {
                try KitReminder.recordVerified(profile, keys: contents.keysFingerprint)
                print("keys     the kit holds this archive's current keys; status now says so")
            }
        } else {
            print("keys     the kit holds the archive's current keys")
        }
        return check.dayOpened == nil ? 1 : 0
    }
}
