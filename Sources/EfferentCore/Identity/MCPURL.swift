/// The MCP URL of a handoff, taken apart (protocol §1.5).
///
/// Http or https, no query, no fragment, path `(.*)/mcp/b/([a-z2-7]{26})`; the endpoint is
/// `scheme://host[:port]` plus the path prefix with trailing `/` stripped.
struct MCPURL: Equatable {
    let endpoint: String
    let bucket: BucketID

    private static let marker = Array("/mcp/b/".utf8)

    init(_ text: String) throws(IdentityError) {
        let bytes = Array(text.utf8)
        let scheme: String
        let rest: ArraySlice<UInt8>
        if let r = MCPURL.dropPrefix("https://", of: bytes) { scheme = "https"; rest = r }
        else if let r = MCPURL.dropPrefix("http://", of: bytes) { scheme = "http"; rest = r }
        else { throw .mcpURLScheme }
        guard !rest.contains(UInt8(ascii: "?")), !rest.contains(UInt8(ascii: "#")) else { throw .mcpURLQuery }
        // Anything that is not printable ASCII, or a user-info part, is no URL this reader signs for.
        guard rest.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !rest.contains(UInt8(ascii: "@")) else { throw .mcpURLScheme }
        let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        let host = rest[rest.startIndex..<slash]
        guard !host.isEmpty, host.first != UInt8(ascii: ":") else { throw .mcpURLScheme }
        let path = rest[slash...]
        let bucketLength = BucketID.length
        guard path.count >= MCPURL.marker.count + bucketLength else { throw .mcpURLPath }
        let bucketStart = path.endIndex - bucketLength
        let markerStart = bucketStart - MCPURL.marker.count
        guard path[markerStart..<bucketStart].elementsEqual(MCPURL.marker),
              let bucket = try? BucketID(String(decoding: path[bucketStart...], as: UTF8.self)) else {
            throw .mcpURLPath
        }
        var endpoint = Array("\(scheme)://".utf8) + host + path[path.startIndex..<markerStart]
        while endpoint.last == UInt8(ascii: "/") { endpoint.removeLast() }
        self.endpoint = String(decoding: endpoint, as: UTF8.self)
        self.bucket = bucket
    }

    private static func dropPrefix(_ prefix: String, of bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let p = Array(prefix.utf8)
        guard bytes.count >= p.count,
              zip(bytes, p).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else { return nil }
        return bytes[p.count...]
    }
}
