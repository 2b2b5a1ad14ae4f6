/// One file in a zip archive, as its central directory record describes it (APPNOTE.TXT §4.3.12).
public struct ZipEntry: Sendable, Equatable {
    /// The path inside the archive, `/`-separated (UTF-8; names that are not valid UTF-8 are read as CP437's ASCII half).
    public var name: String
    /// 0 stored, 8 deflate; anything else cannot be read.
    public var method: UInt16
    /// General purpose bit flags (bit 0: encrypted).
    public var flags: UInt16
    public var crc32: UInt32
    public var compressedSize: UInt64
    public var uncompressedSize: UInt64
    /// Where the entry's local file header starts.
    public var localHeaderOffset: UInt64

    /// Whether the entry names a folder rather than a file.
    public var isDirectory: Bool { name.hasSuffix("/") }
    /// Whether the entry is encrypted (traditional PKWARE or strong encryption).
    public var isEncrypted: Bool { flags & 0x0001 != 0 || flags & 0x0040 != 0 }
    /// The last path component (`export.xml` for `apple_health_export/export.xml`).
    public var fileName: String { name.split(separator: "/").last.map(String.init) ?? name }

    /// Whether a tool's side file, not export content: `__MACOSX/…`, `._…` resource forks, `.DS_Store`.
    public var isSideFile: Bool {
        name.hasPrefix("__MACOSX/") || name.contains("/__MACOSX/") || fileName.hasPrefix("._") || fileName == ".DS_Store"
    }
}
