import EfferentCore
import EfferentClient
import EfferentWriter
import Foundation

extension Keys {
    /// `keys restore` (and `init --recover`): the kit's archive on this empty machine.
    func restore(_ paths: [String], asReader: Bool) async throws -> Int32 {
        let profile = Profile.standard()
        if profile.exists(Profile.settingsName) || profile.exists(KeyFile.writerName) || profile.exists(KeyFile.readingName) {
            throw KeysError.profileInUse(profile.directory)
        }
        let check = try await check(paths)
        guard asReader else { throw KeysError.writerRestoreUnavailable }
        try KitInstall.install(check, into: profile, asReader: true)
        print("this machine now reads archive \(check.contents.bucket) on \(check.endpoint) (\(check.days) days)")
        print("next: efferent sync")
        return 0
    }
}
