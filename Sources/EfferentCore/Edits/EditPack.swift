import EfferentCompression

/// The packed plaintext of an edit (protocol §8).
///
/// The plaintext of an edit: raw deflate of compact `{"v":1,"items":[…]}`, item members in the
/// fixed order `op, id, metric, start, end, value, unit, stage`, absent ones omitted (protocol §8).
///
/// Sealing the packed bytes to the reading public key is the envelope's job.
public enum EditPack {
    /// §8: the only plaintext version.
    public static let version = 1
    /// §8: the members a `put` and a `delete` may carry.
    static let putKeys: Set<String> = ["op", "id", "metric", "start", "end", "value", "unit", "stage"]
    static let deleteKeys: Set<String> = ["op", "id"]

    /// Validates every item at `now` (Unix seconds) and packs them.
    public static func pack(_ items: [EditItem], now: Int64) throws(EditError) -> [UInt8] {
        let json = try plaintext(items, now: now)
        do { return try Deflater().compress(json) } catch { throw .compression }
    }

    /// The uncompressed JSON that `pack` deflates.
    public static func plaintext(_ items: [EditItem], now: Int64) throws(EditError) -> [UInt8] {
        guard (1...ProtocolLimits.maxEditItems).contains(items.count) else { throw .itemCount(items.count) }
        for (index, item) in items.enumerated() {
            do { try item.validate(now: now) } catch { throw .item(index: index, error) }
        }
        var writer = JSONWriter()
        writer.raw("{\"v\":1,\"items\":[")
        for (index, item) in items.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            do { try write(item, to: &writer) } catch { throw .item(index: index, .badValue) }
        }
        writer.raw("]}")
        return writer.bytes
    }

    private static func write(_ item: EditItem, to writer: inout JSONWriter) throws(JSONError) {
        switch item {
        case let .delete(id):
            writer.raw("{\"op\":\"delete\",\"id\":")
            writer.string(id)
        case let .put(put):
            writer.raw("{\"op\":\"put\",\"id\":")
            writer.string(put.id)
            writer.raw(",\"metric\":")
            writer.string(put.metric)
            writer.raw(",\"start\":")
            writer.integer(put.start)
            writer.raw(",\"end\":")
            writer.integer(put.end)
            if let value = put.value { writer.raw(",\"value\":"); try writer.number(value) }
            if let unit = put.unit { writer.raw(",\"unit\":"); writer.string(unit) }
            if let stage = put.stage { writer.raw(",\"stage\":"); writer.string(stage) }
        }
        writer.raw(byte: UInt8(ascii: "}"))
    }

    /// The items of a packed edit, checked for shape only (protocol §8).
    ///
    /// Inflation to at most 1 MiB, strict JSON, exactly `v` = 1 and `items`, 1…500 items, each with only its members and their
    /// types, start and end whole numbers. Run `EditItem.validate(now:)` on each before applying.
    public static func unpack(_ packed: [UInt8]) throws(EditError) -> [EditItem] {
        let plaintext: [UInt8]
        do throws(DeflateError) {
            plaintext = try Inflater().decompress(packed, limit: ProtocolLimits.maxEditPlaintextBytes)
        } catch {
            if case .tooLarge = error { throw .tooLarge }
            throw .compression
        }
        return try items(fromPlaintext: plaintext)
    }

    /// The items of the uncompressed JSON, with the checks of `unpack`.
    public static func items(fromPlaintext plaintext: [UInt8]) throws(EditError) -> [EditItem] {
        guard let json = try? JSONParser.parse(plaintext) else { throw .notJSON }
        guard let top = json.objectValue, Set(top.keys) == ["v", "items"] else { throw .shape("the top level holds exactly v and items") }
        guard top["v"]?.integerValue == Int64(version) else { throw .shape("v must be 1") }
        guard let list = top["items"]?.arrayValue else { throw .shape("items must be a list") }
        guard (1...ProtocolLimits.maxEditItems).contains(list.count) else { throw .itemCount(list.count) }
        var items = [EditItem]()
        items.reserveCapacity(list.count)
        for (index, value) in list.enumerated() {
            items.append(try item(value, index: index))
        }
        return items
    }

    /// Items as an agent hands them over (a JSON list of §8 items), with the shape checks of
    /// `unpack`. Validate them with `pack`, which refuses the whole list on any bad item.
    public static func items(fromList list: [JSONValue]) throws(EditError) -> [EditItem] {
        guard (1...ProtocolLimits.maxEditItems).contains(list.count) else { throw .itemCount(list.count) }
        var items = [EditItem]()
        for (index, value) in list.enumerated() { items.append(try item(value, index: index)) }
        return items
    }

    private static func item(_ value: JSONValue, index: Int) throws(EditError) -> EditItem {
        guard let object = value.objectValue else { throw .shape("item \(index) is not an object") }
        guard let id = object["id"]?.stringValue else { throw .shape("item \(index) needs a string id") }
        switch object["op"]?.stringValue {
        case "delete":
            guard Set(object.keys).isSubset(of: deleteKeys) else { throw .shape("item \(index) carries a member a delete does not take") }
            return .delete(id: id)
        case "put":
            guard Set(object.keys).isSubset(of: putKeys) else { throw .shape("item \(index) carries a member a put does not take") }
            guard let metric = object["metric"]?.stringValue else { throw .shape("item \(index) needs a string metric") }
            guard let start = object["start"]?.integerValue, let end = object["end"]?.integerValue else {
                throw .shape("item \(index) needs whole-second start and end")
            }
            var put = EditItem.Put(id: id, metric: metric, start: start, end: end)
            if let member = object["value"] {
                guard let number = member.numberValue else { throw .shape("item \(index) has a value that is not a number") }
                put.value = number
            }
            if let member = object["unit"] {
                guard let unit = member.stringValue else { throw .shape("item \(index) has a unit that is not a string") }
                put.unit = unit
            }
            if let member = object["stage"] {
                guard let stage = member.stringValue else { throw .shape("item \(index) has a stage that is not a string") }
                put.stage = stage
            }
            return .put(put)
        default:
            throw .shape("item \(index) needs op put or delete")
        }
    }
}
