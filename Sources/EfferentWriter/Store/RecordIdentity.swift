import EfferentCrypto

/// A record's identity (decision A.6): SHA-256 over type, source, start, end, value, unit,
/// category and activity exactly as the export wrote them — each text as its UTF-8 bytes ended
/// by a zero byte, each number as its eight little-endian bit-pattern bytes (all ones when
/// absent) — whose first 8 bytes, read big-endian, make the row id.
///
/// A value type holding its own buffer, so the bytes are written without the exclusivity and
/// allocation costs a class's array property pays on every append (an import asks for one
/// identity per record).
struct RecordIdentity {
    private var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    /// The row id of `record`.
    mutating func of(_ record: SourceRecord) -> Int64 {
        bytes.removeAll(keepingCapacity: true)
        text(record.type)
        text(record.source)
        number(record.start)
        number(record.end)
        number(record.value)
        text(record.unit)
        text(record.category)
        text(record.activity)
        return Int64(bitPattern: Sodium.sha256Prefix(bytes))
    }

    private mutating func text(_ value: String?) {
        if let value { bytes.append(contentsOf: value.utf8) }
        bytes.append(0)
    }

    private mutating func number(_ value: Double?) {
        let bits = value?.bitPattern ?? UInt64.max
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }
}
