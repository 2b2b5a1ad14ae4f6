/// The text a writer shares to connect a reader (protocol §1.5).
///
/// The text the writer shares to connect a reader: an instruction, the MCP URL, the reading key
/// and, optionally, the editor key (protocol §1.5).
///
/// A three-field handoff (no editor key) "predates writing" and gives a read-only reader.
/// Never prints itself: `description` names the endpoint and bucket only.
///
/// The bucket is the MCP URL's. It is derived from the archive's first reading key (§1.6); after
/// a key rotation (documents/protocol.md, "Key rotation") the archive keeps its bucket and the
/// reading key no longer derives it, which `readingKeyDerivesBucket` says: such a handoff is
/// proven at the first read, which the service answers only for the read key its owner registered.
public struct Handoff: Sendable, CustomStringConvertible {
    /// The service endpoint: `scheme://host[:port]` plus the path before `/mcp/b/…`, no trailing `/`.
    public let endpoint: String
    public let bucket: BucketID
    public let readingKey: ReadingKey
    public let editorKey: EditorKey?

    /// Builds a handoff for `endpoint` (an http or https URL with no query); refuses an endpoint
    /// whose MCP URL would not parse back. The bucket is the one `readingKey` derives unless given
    /// (an archive whose keys were rotated).
    public init(endpoint: String, bucket: BucketID? = nil, readingKey: ReadingKey, editorKey: EditorKey? = nil) throws(IdentityError) {
        var trimmed = endpoint
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let bucket = bucket ?? readingKey.bucket
        let parsed = try MCPURL(trimmed + "/mcp/b/" + bucket.rawValue)
        self.endpoint = parsed.endpoint
        self.bucket = bucket
        self.readingKey = readingKey
        self.editorKey = editorKey
    }

    /// Whether the reading key derives the bucket (§1.6): true but after a key rotation.
    public var readingKeyDerivesBucket: Bool { readingKey.bucket == bucket }

    /// §1.5: the deployment's MCP base URL, a `/`, and the bucket.
    public var mcpURL: String { endpoint + "/mcp/b/" + bucket.rawValue }

    /// This project's one-line instruction to the agent (protocol §1.5).
    ///
    /// §1.5 leaves the wording to the writer; the fields stay byte for byte. It leads with the
    /// local reader (`efferent connect`, then `efferent mcp`), which answers every question from
    /// a local copy, and describes the remote endpoint for what it is: the place an agent with a
    /// shell gets a reader script from (its `setup_guide`). It still names `setup_guide` and says
    /// "Keep the reading key[ and the editor key] local", as the reference package's importer requires.
    public static func instruction(withEditor: Bool) -> String {
        let keep = withEditor ? "Keep the reading key and the editor key local" : "Keep the reading key local"
        return "Read this health archive on your own machine: save this text as handoff.txt (chmod 600), run "
            + "`efferent connect --handoff handoff.txt`, then add `efferent mcp` to your agent as a local MCP server; it answers "
            + "every question offline. The MCP URL below only hands out sealed days: an agent with a shell and no efferent command "
            + "calls its setup_guide tool for a reader script to run. \(keep): they open this archive and must never be pasted "
            + "into a chat or sent anywhere."
    }

    /// The handoff text (protocol §1.5).
    ///
    /// §1.5: `Label:\n<value>` blocks joined by a blank line, in the order Instruction, MCP,
    /// Reading key, Editor key (the last only when there is one).
    public var text: String {
        var blocks = [
            "Instruction:\n" + Handoff.instruction(withEditor: editorKey != nil),
            "MCP:\n" + mcpURL,
            "Reading key:\n" + readingKey.handoffField,
        ]
        if let editorKey { blocks.append("Editor key:\n" + editorKey.handoffField) }
        return blocks.joined(separator: "\n\n")
    }

    /// Parses a handoff as every reader does (protocol §1.5).
    ///
    /// Each field is the first line after `Name:`; the MCP URL is http/https without query or
    /// fragment and ends in `/mcp/b/<bucket>`; the reading key passes §1.1; the editor key is
    /// optional. A reading key that derives another bucket is taken only with `allowingRotatedKey`
    /// (the caller then proves it with a signed read): otherwise it is `bucketMismatch`, §1.5's
    /// "the reading key belongs to a different bucket than the MCP URL". With `checkingInstruction` (the package importer's rule)
    /// the Instruction line must mention `setup_guide` and "Keep the reading key[ and the editor
    /// key] local".
    public init(parsing text: String, checkingInstruction: Bool = true, allowingRotatedKey: Bool = false) throws(IdentityError) {
        let bytes = Array(text.utf8)
        if checkingInstruction {
            guard let line = Handoff.field("Instruction", in: bytes) else { throw .missingField(name: "Instruction") }
            guard Handoff.isKnownInstruction(line) else { throw .instruction }
        }
        guard let url = Handoff.field("MCP", in: bytes) else { throw .missingField(name: "MCP") }
        guard let readingField = Handoff.field("Reading key", in: bytes) else { throw .missingField(name: "Reading key") }
        let mcp = try MCPURL(url)
        let reading = try ReadingKey(handoffField: readingField)
        guard allowingRotatedKey || reading.bucket == mcp.bucket else { throw .bucketMismatch }
        var editor: EditorKey?
        if let editorField = Handoff.field("Editor key", in: bytes) { editor = try EditorKey(handoffField: editorField) }
        endpoint = mcp.endpoint
        bucket = mcp.bucket
        readingKey = reading
        editorKey = editor
    }

    /// `setup_guide` and the regex `Keep the reading key( and the editor key)? local`.
    static func isKnownInstruction(_ line: String) -> Bool {
        line.contains("setup_guide")
            && (line.contains("Keep the reading key local") || line.contains("Keep the reading key and the editor key local"))
    }

    /// The value of field `name` by the readers' first-line rule (protocol §1.5).
    ///
    /// The regex `(?:^|\n)<Name>:\s*\r?\n([^\r\n]+)` searched for its leftmost match (greedy `\s*`,
    /// backtracking as a regex engine would), then trimmed. `nil` when there is no match or the
    /// trimmed value is empty.
    static func field(_ name: String, in text: [UInt8]) -> String? {
        let label = Array(name.utf8) + [UInt8(ascii: ":")]
        var start = 0
        while start + label.count <= text.count {
            let atLineStart = start == 0 || text[start - 1] == 0x0A
            if atLineStart, text[start..<(start + label.count)].elementsEqual(label),
               let value = valueAfterLabel(text, from: start + label.count) {
                let trimmed = trim(value)
                return trimmed.isEmpty ? nil : String(decoding: trimmed, as: UTF8.self)
            }
            start += 1
        }
        return nil
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }

    /// `\s*\r?\n([^\r\n]+)` anchored at `from`, with the longest `\s*` that still matches.
    private static func valueAfterLabel(_ text: [UInt8], from: Int) -> ArraySlice<UInt8>? {
        var spaceEnd = from
        while spaceEnd < text.count, isSpace(text[spaceEnd]) { spaceEnd += 1 }
        var k = spaceEnd
        while k >= from {
            var next: Int?
            if k < text.count, text[k] == 0x0A { next = k + 1 }
            else if k + 1 < text.count, text[k] == 0x0D, text[k + 1] == 0x0A { next = k + 2 }
            if let next {
                var end = next
                while end < text.count, text[end] != 0x0A, text[end] != 0x0D { end += 1 }
                if end > next { return text[next..<end] }
            }
            k -= 1
        }
        return nil
    }

    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return slice
    }

    public var description: String { "Handoff(\(endpoint), bucket: \(bucket), editor: \(editorKey != nil))" }
}
