/// Every number decision A.15 (shared links, documents/protocol.md) fixes, in one place.
public enum LinkLimits {
    /// One encrypted file as it is uploaded (compact JWE text).
    public static let maxFileBytes = 16 * 1024 * 1024
    /// Files one link lists.
    public static let maxFiles = 256
    /// Links one archive may hold at once (revoked, expired and locked ones do not count).
    public static let maxLiveLinks = 100
    /// Wrong passcodes a link takes in its life before it is locked for good (the IG's
    /// "total lifetime count of incorrect Passcodes").
    public static let passcodeAttempts = 10
    /// A passcode's length in bytes, as the owner sets it and as a viewer sends it.
    public static let passcodeBytes = 4...256
    /// How long a file's `location` answers after the manifest that gave it (the IG: at most an hour).
    public static let locationSeconds: Int64 = 3600
    /// Files up to this many bytes are embedded in the manifest when the client names no
    /// `embeddedLengthMax`; larger ones get a `location`.
    public static let embeddedDefaultBytes = 256 * 1024
    /// The longest a link may live.
    public static let maxLifetimeSeconds: Int64 = 3650 * 86_400
    /// Characters of a viewer's `recipient` the service keeps.
    public static let recipientCharacters = 200
    /// Openings kept per link (the count goes on; the oldest are dropped).
    public static let accessesKept = 100
    /// Where on the service the link routes live: off Efferent's own `/b/` routes.
    public static let routePrefix = "/shl"
    /// Where the viewer is served.
    public static let viewerPath = "/share"
}
