import Testing
@testable import EfferentCore

@Suite struct HandoffTests {
    let reading = ReadingKey()
    let editor = EditorKey()

    @Test func roundTripWithEditor() throws {
        let handoff = try Handoff(endpoint: "https://efferent.example.org/", readingKey: reading, editorKey: editor)
        #expect(handoff.endpoint == "https://efferent.example.org")
        #expect(handoff.mcpURL == "https://efferent.example.org/mcp/b/\(reading.bucket)")
        let text = handoff.text
        let blocks = text.components(separatedBy: "\n\n")
        #expect(blocks.map { $0.split(separator: "\n").first.map(String.init) ?? "" } == ["Instruction:", "MCP:", "Reading key:", "Editor key:"])
        let parsed = try Handoff(parsing: text)
        #expect(parsed.endpoint == "https://efferent.example.org")
        #expect(parsed.bucket == reading.bucket)
        #expect(parsed.readingKey.publicKey == reading.publicKey)
        #expect(parsed.editorKey?.publicKey == editor.publicKey)
        #expect(!text.contains("\n\n\n"))
    }

    @Test func instructionLine() {
        for withEditor in [false, true] {
            let line = Handoff.instruction(withEditor: withEditor)
            #expect(!line.contains("\n"))
            #expect(Handoff.isKnownInstruction(line))
            #expect(line.contains(withEditor ? "Keep the reading key and the editor key local" : "Keep the reading key local"))
        }
        #expect(!Handoff.isKnownInstruction("Keep the reading key local."))
        #expect(!Handoff.isKnownInstruction("Call setup_guide first."))
    }

    /// A three-field handoff "predates writing": a read-only reader.
    @Test func threeFieldHandoffIsReadOnly() throws {
        let text = try Handoff(endpoint: "http://127.0.0.1:8080/efferent", readingKey: reading).text
        #expect(!text.contains("Editor key:"))
        let parsed = try Handoff(parsing: text)
        #expect(parsed.editorKey == nil)
        #expect(parsed.endpoint == "http://127.0.0.1:8080/efferent")
    }

    func text(mcp: String? = nil, readingField: String? = nil, editorField: String? = nil, instruction: String? = nil) -> String {
        var blocks = ["Instruction:\n" + (instruction ?? Handoff.instruction(withEditor: true)),
                      "MCP:\n" + (mcp ?? "https://api.example.net/mcp/b/\(reading.bucket)"),
                      "Reading key:\n" + (readingField ?? reading.handoffField)]
        if let editorField { blocks.append("Editor key:\n" + editorField) }
        return blocks.joined(separator: "\n\n")
    }

    @Test func refusals() {
        let other = ReadingKey()
        let parts = reading.handoffField.split(separator: ".").map(String.init)
        let otherPublic = Base64URL.encode(other.publicKey.rawRepresentation)
        let cases: [(String, IdentityError)] = [
            (text(mcp: "https://api.example.net/mcp/b/\(other.bucket)"), .bucketMismatch),
            (text(mcp: "https://api.example.net/mcp/b/\(reading.bucket)?x=1"), .mcpURLQuery),
            (text(mcp: "https://api.example.net/mcp/b/\(reading.bucket)#top"), .mcpURLQuery),
            (text(mcp: "ftp://api.example.net/mcp/b/\(reading.bucket)"), .mcpURLScheme),
            (text(mcp: "https:///mcp/b/\(reading.bucket)"), .mcpURLScheme),
            (text(mcp: "https://api.example.net/mcp/\(reading.bucket)"), .mcpURLPath),
            (text(mcp: "https://api.example.net/mcp/b/\(reading.bucket)/"), .mcpURLPath),
            (text(mcp: "https://api.example.net/mcp/b/\(reading.bucket.rawValue.uppercased())"), .mcpURLPath),
            (text(readingField: "\(parts[0]).\(parts[1])"), .keyFieldParts(kind: "reading")),
            (text(readingField: "\(parts[0]).\(parts[1]).not*base64*at*all*not*base64*at*all*1234"), .keyFieldEncoding(kind: "reading")),
            (text(readingField: "\(parts[0]).\(parts[1]).\(otherPublic)"), .halvesMismatch(kind: "reading")),
            (text(editorField: "efferent-editor-v1.\(Base64URL.encode(editor.privateKey.rawRepresentation.revealed())).\(Base64URL.encode(EditorKey().publicKey.rawRepresentation))"),
             .halvesMismatch(kind: "editor")),
            (text(instruction: "Connect the MCP."), .instruction),
            ("MCP:\nhttps://api.example.net/mcp/b/\(reading.bucket)\n\nReading key:\n\(reading.handoffField)", .missingField(name: "Instruction")),
            ("Instruction:\n\(Handoff.instruction(withEditor: false))\n\nReading key:\n\(reading.handoffField)", .missingField(name: "MCP")),
        ]
        for (text, error) in cases {
            #expect(throws: error) { try Handoff(parsing: text) }
        }
        // The standalone script never looks at the Instruction.
        #expect((try? Handoff(parsing: text(instruction: "anything"), checkingInstruction: false)) != nil)
        #expect(IdentityError.bucketMismatch.description == "the reading key belongs to a different bucket than the MCP URL")
    }

    /// The field rule: first line after `Name:`, blank lines and CRLF allowed, value trimmed,
    /// leftmost label at a line start wins, prefix path kept and trailing slashes stripped.
    @Test func fieldRule() throws {
        let messy = "Instruction:   \r\n  \(Handoff.instruction(withEditor: false))  \r\n\r\n"
            + "MCP:\n\n\n   https://host.example:8443/a/b//mcp/b/\(reading.bucket)   \n"
            + "Reading key:\r\n\(reading.handoffField)\r\n"
            + "MCP:\nhttps://ignored.example/mcp/b/\(ReadingKey().bucket)\n"
        let parsed = try Handoff(parsing: messy)
        #expect(parsed.endpoint == "https://host.example:8443/a/b")
        #expect(Handoff.field("MCP", in: Array("xMCP:\nno\nMCP:\nyes".utf8)) == "yes")
        #expect(Handoff.field("MCP", in: Array("MCP: value on the same line".utf8)) == nil)
        #expect(Handoff.field("MCP", in: Array("MCP:\n   \n".utf8)) == nil)
        #expect(Handoff.field("MCP", in: Array("MCP:\n".utf8)) == nil)
        #expect(Handoff.field("Reading key", in: Array("Reading key:\n\tabc\t".utf8)) == "abc")
        let root = try Handoff(parsing: text(mcp: "HTTPS://api.example.net/mcp/b/\(reading.bucket)"))
        #expect(root.endpoint == "https://api.example.net")
    }

    @Test func descriptionHoldsNoKey() throws {
        let handoff = try Handoff(endpoint: "https://e.example", readingKey: reading, editorKey: editor)
        #expect(!handoff.description.contains(Base64URL.encode(reading.privateKey.rawRepresentation.revealed())))
        #expect(!handoff.description.contains("efferent-reading-v1"))
    }
}
