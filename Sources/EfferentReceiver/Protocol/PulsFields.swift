import EfferentCore

/// One JSON object of a phone's batch read by the protocol's schemas (Puls Sync Protocol v1,
/// `schema/*.schema.json`): each getter checks its field's type and range and throws a
/// sentence naming the line and the field when it is wrong. Absent and `null` mean the same
/// (§3.4); unknown fields are never looked at, so they are ignored.
struct PulsFields {
    let members: [String: JSONValue]
    /// Where the object stands, for messages: `line 4 (sample 3)`, `line 4 (sample 3) workout`.
    let place: PulsPlace

    /// The accepted range of epoch milliseconds: 0001-01-01 to 9999-12-31T23:59:59.999Z (§3.4).
    static let epochRange = -62_135_596_800_000.0...253_402_300_799_999.0

    init(_ value: JSONValue?, place: PulsPlace) throws(PulsBatchError) {
        guard case let .object(members)? = value else { throw .malformed("\(place) is not a JSON object") }
        self.members = members
        self.place = place
    }

    func fail(_ field: String, _ problem: String) -> PulsBatchError { .malformed("\(place): \"\(field)\" \(problem)") }

    /// The field unless it is absent or `null`.
    func value(_ key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    func uuid(_ key: String) throws(PulsBatchError) -> PulsUUID {
        guard let value = value(key) else { throw fail(key, "is missing") }
        guard let text = value.stringValue, let uuid = PulsUUID(text) else { throw fail(key, "is not a UUID (8-4-4-4-12 hexadecimal)") }
        return uuid
    }

    func string(_ key: String, required: Bool = false, nonEmpty: Bool = false, maxLength: Int? = nil) throws(PulsBatchError) -> String? {
        guard let value = value(key) else {
            if required { throw fail(key, "is missing") }
            return nil
        }
        guard let text = value.stringValue else { throw fail(key, "is not a string") }
        if nonEmpty && text.isEmpty { throw fail(key, "is empty") }
        if let maxLength, text.count > maxLength { throw fail(key, "is longer than \(maxLength) characters") }
        return text
    }

    func number(_ key: String, required: Bool = false, in range: ClosedRange<Double>? = nil) throws(PulsBatchError) -> Double? {
        guard let value = value(key) else {
            if required { throw fail(key, "is missing") }
            return nil
        }
        guard let number = value.numberValue, number.isFinite else { throw fail(key, "is not a number") }
        if let range, !range.contains(number) { throw fail(key, "is outside \(Self.text(range.lowerBound))…\(Self.text(range.upperBound))") }
        return number
    }

    func integer(_ key: String, required: Bool = false, in range: ClosedRange<Int64>) throws(PulsBatchError) -> Int64? {
        guard let value = value(key) else {
            if required { throw fail(key, "is missing") }
            return nil
        }
        guard let integer = value.integerValue else { throw fail(key, "is not an integer") }
        guard range.contains(integer) else { throw fail(key, "is outside \(range.lowerBound)…\(range.upperBound)") }
        return integer
    }

    /// Epoch milliseconds, fractions allowed (§3.4). A required timestamp that is 0 counts as absent.
    func epochMilliseconds(_ key: String, required: Bool = false) throws(PulsBatchError) -> Double? {
        guard let value = value(key) else {
            if required { throw fail(key, "is missing") }
            return nil
        }
        guard let number = value.numberValue, number.isFinite else { throw fail(key, "is not epoch milliseconds (a JSON number)") }
        guard Self.epochRange.contains(number) else { throw fail(key, "is outside the years 0001 to 9999") }
        if required && number == 0 { throw fail(key, "is 0, which counts as missing") }
        return number
    }

    func oneOf(_ key: String, _ allowed: Set<String>, required: Bool = false) throws(PulsBatchError) -> String? {
        guard let text = try string(key, required: required) else { return nil }
        guard allowed.contains(text) else { throw fail(key, "is not one of " + allowed.sorted().joined(separator: ", ")) }
        return text
    }

    func object(_ key: String, required: Bool = false) throws(PulsBatchError) -> PulsFields? {
        guard let value = value(key) else {
            if required { throw fail(key, "is missing") }
            return nil
        }
        return try PulsFields(value, place: .member(place, key: key))
    }

    func array(_ key: String, required: Bool = false) throws(PulsBatchError) -> [JSONValue]? {
        guard let value = value(key) else {
            if required { throw fail(key, "is missing") }
            return nil
        }
        guard let items = value.arrayValue else { throw fail(key, "is not an array") }
        return items
    }

    /// Every element a string (State of Mind labels and associations).
    func strings(_ key: String, required: Bool) throws(PulsBatchError) {
        guard let items = try array(key, required: required) else { return }
        for item in items where item.stringValue == nil { throw fail(key, "holds something other than strings") }
    }

    /// A temporal context (§3.4): `timeZoneID`, `utcOffsetSeconds`, `source`, `confidence` required
    /// when the object is there; `tzdbVersion` may be empty.
    func temporalContext(_ key: String) throws(PulsBatchError) {
        guard let context = try object(key) else { return }
        _ = try context.string("timeZoneID", required: true, nonEmpty: true)
        _ = try context.integer("utcOffsetSeconds", required: true, in: -86_400...86_400)
        _ = try context.string("source", required: true, nonEmpty: true)
        _ = try context.string("confidence", required: true, nonEmpty: true)
        if let version = context.members["tzdbVersion"], !version.isNull, version.stringValue == nil {
            throw context.fail("tzdbVersion", "is not a string")
        }
    }

    /// Metadata: an object of strings, numbers and booleans (§3.4).
    func metadata(_ key: String) throws(PulsBatchError) {
        guard let value = value(key) else { return }
        guard let members = value.objectValue else { throw fail(key, "is not an object") }
        for (_, item) in members {
            switch item {
            case .string, .number, .bool: continue
            default: throw fail(key, "holds a value that is not a string, number or boolean")
            }
        }
    }

    /// Each named field, when present, a number or `null`.
    func nullableNumbers(_ keys: [String]) throws(PulsBatchError) {
        for key in keys { _ = try number(key) }
    }

    /// Each named field, when present, a string or `null`.
    func nullableStrings(_ keys: [String]) throws(PulsBatchError) {
        for key in keys { _ = try string(key) }
    }

    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
