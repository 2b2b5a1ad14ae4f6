/// What the writer answers for one edit (protocol §8).
///
/// How many items it applied and which failed with which word (protocol §8, `PUT …/outcome`).
///
/// Written as `{"applied":n,"failed":[{"code":"…","item":i}]}` with sorted keys; read from that
/// or the legacy `refused` in place of `failed`.
public struct EditOutcome: Equatable, Sendable {
    /// One failed item: its 0-based index and the word.
    public struct Failure: Equatable, Sendable {
        public let item: Int
        public let code: OutcomeCode

        public init(item: Int, code: OutcomeCode) {
            self.item = item
            self.code = code
        }
    }

    public let applied: Int
    public let failed: [Failure]

    public init(applied: Int, failed: [Failure]) {
        self.applied = applied
        self.failed = failed
    }

    /// §8: an edit that cannot be verified, opened or parsed fails as one item 0 with `code`.
    public static func refusedWhole(_ code: OutcomeCode) -> EditOutcome {
        EditOutcome(applied: 0, failed: [Failure(item: 0, code: code)])
    }

    /// The compact, key-sorted JSON body the writer sends.
    public var encoded: [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\"applied\":")
        writer.integer(Int64(applied))
        writer.raw(",\"failed\":[")
        for (index, failure) in failed.enumerated() {
            if index > 0 { writer.raw(byte: UInt8(ascii: ",")) }
            writer.raw("{\"code\":")
            writer.string(failure.code.rawValue)
            writer.raw(",\"item\":")
            writer.integer(Int64(failure.item))
            writer.raw(byte: UInt8(ascii: "}"))
        }
        writer.raw("]}")
        return writer.bytes
    }

    /// Reads an outcome body (protocol §6, §8).
    ///
    /// `applied` a whole number ≥ 0 and exactly one of `failed` or `refused`, a list of
    /// `{"code","item"}` with a code from the closed vocabulary. Any other member is refused,
    /// except `bytes` and `at` when `allowingServiceMembers` (what `GET /o/<name>` adds).
    public init(decoding bytes: [UInt8], allowingServiceMembers: Bool = false) throws(EditError) {
        guard bytes.count <= ProtocolLimits.maxOutcomeBytes else { throw .malformedOutcome("it is larger than 64 KiB") }
        guard let json = try? JSONParser.parse(bytes), let top = json.objectValue else {
            throw .malformedOutcome("it is not a JSON object")
        }
        var allowed: Set<String> = ["applied", "failed", "refused"]
        if allowingServiceMembers { allowed.formUnion(["bytes", "at"]) }
        guard Set(top.keys).isSubset(of: allowed) else { throw .malformedOutcome("it carries a member an outcome does not take") }
        guard let applied = top["applied"]?.integerValue, applied >= 0, applied <= Int64(Int32.max) else {
            throw .malformedOutcome("applied must be a whole number of at least 0")
        }
        let lists = [top["failed"], top["refused"]].compactMap { $0 }
        guard lists.count == 1, let list = lists.first?.arrayValue else {
            throw .malformedOutcome("it needs one list named failed (or the older refused)")
        }
        var failed = [Failure]()
        for entry in list {
            guard let object = entry.objectValue, Set(object.keys) == ["code", "item"],
                  let word = object["code"]?.stringValue, let item = object["item"]?.integerValue,
                  item >= 0, item < Int64(Int32.max) else {
                throw .malformedOutcome("each failure is {\"code\", \"item\"} with a whole item index")
            }
            guard let code = OutcomeCode(rawValue: word) else { throw .malformedOutcome("a failure's code is not one of protocol §8's words") }
            failed.append(Failure(item: Int(item), code: code))
        }
        self.applied = Int(applied)
        self.failed = failed
    }
}
