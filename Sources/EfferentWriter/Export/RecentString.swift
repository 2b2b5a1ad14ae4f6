/// Remembers the last bytes turned into a String, so runs of identical attribute values (records
/// come grouped by type and source) cost a comparison rather than an allocation.
struct RecentString {
    private var raw: [UInt8] = []
    private var value = ""
    private var primed = false

    /// The string for `bytes`, decoding entities when `entities` is set.
    mutating func string(_ bytes: ArraySlice<UInt8>, entities: Bool) -> String {
        if primed, bytes.count == raw.count, Self.same(bytes, raw) { return value }
        raw = Array(bytes)
        value = entities ? XMLBytes.decodeEntities(bytes) : String(decoding: bytes, as: UTF8.self)
        primed = true
        return value
    }

    @inline(__always)
    private static func same(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Bool {
        var i = a.startIndex, j = 0
        while j < b.count {
            if a[i] != b[j] { return false }
            i += 1
            j += 1
        }
        return true
    }
}
