/// How much body a route takes, and what it answers past that: a declared length over the
/// ceiling is refused before a byte is read; a chunked body is cut as it passes (what passed is
/// dropped, not kept). With `gzip`, a body sent with `Content-Encoding: gzip` is inflated as it
/// arrives, against a ceiling of its own, so a small bomb is stopped while it inflates.
public struct BodyLimit: Sendable {
    public let bytes: Int
    public let refusal: any HTTPResponseError & Sendable
    public let gzip: Gzip?

    public struct Gzip: Sendable {
        /// The most bytes the inflated body may hold.
        public let inflatedBytes: Int
        public let refusal: any HTTPResponseError & Sendable

        public init(inflatedBytes: Int, refusal: (any HTTPResponseError & Sendable)? = nil) {
            self.inflatedBytes = inflatedBytes
            self.refusal = refusal ?? HTTPError(413, "this route takes a body of at most \(inflatedBytes) bytes once inflated")
        }
    }

    /// At most `bytes` on the wire; `refusal` (413 naming the ceiling by default) past it.
    public init(bytes: Int, refusal: (any HTTPResponseError & Sendable)? = nil, gzip: Gzip? = nil) {
        self.bytes = bytes
        self.refusal = refusal ?? HTTPError.bodyTooLarge(bytes)
        self.gzip = gzip
    }

    /// What a route takes when it names no ceiling: a small body (a query, a key), never a payload.
    public static let standard = BodyLimit(bytes: 4096)
}
