/// Why a bucket id, a key field, a key file or a handoff was refused (protocol §1).
///
/// Descriptions name the field at fault, never its value: these strings hold keys.
public enum IdentityError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformedBucketID
    case malformedKitLocator
    /// `kind` is `reading` or `editor`.
    case keyFieldParts(kind: String)
    case keyFieldPrefix(kind: String)
    case keyFieldEncoding(kind: String)
    case keyFieldLength(kind: String)
    case halvesMismatch(kind: String)
    case bucketMismatch
    case missingField(name: String)
    case instruction
    case mcpURLScheme
    case mcpURLQuery
    case mcpURLPath
    case keyFile(name: String)
    case keyFileMismatch(name: String)

    public var description: String {
        switch self {
        case .malformedBucketID:
            "malformed bucket id"
        case .malformedKitLocator:
            "malformed kit locator"
        case let .keyFieldParts(kind):
            "the \(kind) key must be three parts joined by dots: efferent-\(kind)-v1.<private>.<public>"
        case let .keyFieldPrefix(kind):
            "the \(kind) key must start with efferent-\(kind)-v1; copy the whole line from the handoff"
        case let .keyFieldEncoding(kind):
            "a half of the \(kind) key is not unpadded base64url; copy the whole line from the handoff"
        case let .keyFieldLength(kind):
            "each half of the \(kind) key must decode to 32 bytes; copy the whole line from the handoff"
        case let .halvesMismatch(kind):
            "the private and public halves of the \(kind) key do not match"
        case .bucketMismatch:
            "the reading key belongs to a different bucket than the MCP URL"
        case let .missingField(name):
            "the handoff has no \(name) field; share the connection again from the writer"
        case .instruction:
            "the handoff's Instruction line is not one this reader knows; share the connection again from the writer"
        case .mcpURLScheme:
            "the MCP URL must start with http:// or https:// and name a host"
        case .mcpURLQuery:
            "the MCP URL must not carry a query or a fragment"
        case .mcpURLPath:
            "the MCP URL must end in /mcp/b/<bucket id>"
        case let .keyFile(name):
            "\(name) is not a key file this reader wrote; import the handoff again"
        case let .keyFileMismatch(name):
            "the private and public keys in \(name) do not match; import the handoff again"
        }
    }
}
