import EfferentClient
import EfferentWriter
import Foundation

extension Keys {
    /// `keys rotate`: new reading and editor keys, every day sealed anew (see `KeyRotation`).
    func rotate() async throws -> Int32 {
        let context = try WriterContext()
        let resuming = try context.profile.rotationJournal() != nil
        note(resuming ? "finishing the key rotation a previous run began…"
                      : "rotating the keys of archive \(context.settings.bucket): a new reading key and editor key, every day sealed anew…")
        var rotation = KeyRotation(context: context)
        let bar = ProgressBar(label: "rotate", unit: "days")
        defer { bar.finish() }
        if Environment.isTerminal { rotation.progress = { step in bar.update(done: step.done, total: step.total, bytes: step.bytes) } }
        let started = Date()
        let report = try await rotation.run()
        bar.finish()
        print("rotated: \(report.resealed) of \(report.days) days sealed to the new reading key (\(report.alreadyNew) were already), "
              + "\(report.requests) requests, \(report.bytes) bytes, in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        if report.rebuilt > 0 { print("\(report.rebuilt) days neither key opened were rebuilt from this machine's records and sent again") }
        if report.rechecked > 0 { print("\(report.rechecked) days another process uploaded meanwhile were checked again") }
        print("old handoffs are refused on every read from now on, and the old editor key can no longer queue edits")
        print("the new handoff is in \(context.profile.path(Profile.handoffName)) (efferent handoff prints it): give it to the readers and agents you still trust")
        print("readers of this archive fetch every day again at their next sync (each was uploaded anew)")
        print("your recovery kit holds the old keys: write and verify a new one (efferent keys backup, then efferent keys verify FILE)")
        return 0
    }
}
