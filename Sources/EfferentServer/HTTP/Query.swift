import EfferentCore

/// The parameters of a request's query string, percent-decoded; a parameter given twice is refused.
struct Query {
    private var values: [String: String] = [:]

    init(_ raw: Substring) throws(ServiceError) {
        for pair in raw.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Query.decode(parts[0]) else { throw ServiceError(400, "the query is not valid percent-encoding") }
            let value = parts.count == 2 ? Query.decode(parts[1]) : ""
            guard let value else { throw ServiceError(400, "the query is not valid percent-encoding") }
            guard values[name] == nil else { throw ServiceError(400, "\(name.prefix(20)) is given twice in the query") }
            values[name] = value
        }
    }

    subscript(name: String) -> String? { values[name].flatMap { $0.isEmpty ? nil : $0 } }

    func day(_ name: String) throws(ServiceError) -> CalendarDay? {
        guard let text = self[name] else { return nil }
        guard let day = CalendarDay(text) else { throw ServiceError(400, "\(name) must be a real date written YYYY-MM-DD") }
        return day
    }

    func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws(ServiceError) -> Int {
        guard let text = self[name] else { return fallback }
        guard let n = Int(text), range.contains(n) else {
            throw ServiceError(400, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    static func decode(_ text: Substring) -> String? {
        // Most values (days, numbers) have nothing to decode: the text is the value.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) { return String(text) }
        var bytes = [UInt8]()
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = Hex.decode(String(decoding: [high, low], as: UTF8.self))?.first else { return nil }
                bytes.append(value)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
