/// The stored records a full import found already there, one bit per row id, kept in memory for
/// the run: at its end, the imported rows of its span it did not find are the ones Health no
/// longer holds.
///
/// Stamping each found row with the run instead rewrote every page of the store on a re-import of
/// an unchanged export (the usual monthly one: Apple's exports always hold everything), and cost
/// more than importing the rows had. A bit per id up to the store's largest when the run began
/// is 1.2 MB for ten million rows; rows added by the run itself come after that id.
/// Used by the import's writer thread, then by `finish` once that thread is done.
final class SeenRows {
    /// The largest row id when the run began; rows after it were added since.
    let last: Int64
    private var words: [UInt64]

    /// Ids beyond this are not kept in memory (32 MiB of bits); a store that large is stamped.
    static let largest: Int64 = 1 << 28

    /// Nil when `last` is past `largest` (the caller stamps rows instead).
    init?(last: Int64) {
        guard last >= 0, last <= Self.largest else { return nil }
        self.last = last
        words = [UInt64](repeating: 0, count: Int(last / 64) + 1)
    }

    /// Notes `rid` as found; an id after `last` (added by this run) needs no note.
    func insert(_ rid: Int64) {
        guard rid >= 0, rid <= last else { return }
        words[Int(rid / 64)] |= 1 << UInt64(rid % 64)
    }

    /// Whether `rid` was found, or was added after the run began.
    func contains(_ rid: Int64) -> Bool {
        guard rid >= 0 else { return false }
        guard rid <= last else { return true }
        return words[Int(rid / 64)] & (1 << UInt64(rid % 64)) != 0
    }
}
