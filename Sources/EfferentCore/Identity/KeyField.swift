/// The one-line handoff form of a key pair (protocol §1.1, §1.4).
///
/// Shared by the reading key and the editor key.
enum KeyField {
    /// The two 32-byte halves of a field, after every check that does not need the curve.
    static func halves(of field: some StringProtocol, kind: String) throws(IdentityError) -> (privateRaw: [UInt8], publicRaw: [UInt8]) {
        let parts = field.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .keyFieldParts(kind: kind) }
        guard parts[0] == "efferent-\(kind)-v1" else { throw .keyFieldPrefix(kind: kind) }
        guard let privateRaw = Base64URL.decode(parts[1]), let publicRaw = Base64URL.decode(parts[2]) else {
            throw .keyFieldEncoding(kind: kind)
        }
        guard privateRaw.count == 32, publicRaw.count == 32 else { throw .keyFieldLength(kind: kind) }
        return (privateRaw, publicRaw)
    }

    static func render(kind: String, privateRaw: [UInt8], publicRaw: [UInt8]) -> String {
        "efferent-\(kind)-v1.\(Base64URL.encode(privateRaw)).\(Base64URL.encode(publicRaw))"
    }
}
