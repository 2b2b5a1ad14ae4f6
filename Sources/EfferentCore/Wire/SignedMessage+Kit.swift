/// The one string this project's kit extension signs (documents/protocol.md, "Recovery kits"):
/// it lives off Efferent's own routes and starts with its own tag, so no signature made for it is
/// a valid signature of anything in protocol §5–§8, and no wire signature is one of it.
extension SignedMessage {
    /// The tag that opens it.
    public static let kitVersion = "efferent-kit/v1"

    /// Writer key: `efferent-kit/v1 put\n<bucket>\n<locator>\n<ts>\n<digest(sealed record)>`, for
    /// `PUT /kit/<locator>` (the bucket travels as `x-efferent-bucket`).
    public static func kit(bucket: BucketID, locator: KitLocator, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        Array(["\(kitVersion) put", bucket.rawValue, locator.rawValue, String(timestamp), digest(body)].joined(separator: "\n").utf8)
    }
}
