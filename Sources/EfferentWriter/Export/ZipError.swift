/// Why a zip archive could not be read; each description is one sentence saying what to do.
///
/// `file` is the archive's file name and `entry` a path inside it: neither is a health value.
public enum ZipError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be opened or read at all.
    case unreadable(file: String)
    /// No zip structure anywhere in the file.
    case notAZip(file: String)
    /// A zip whose end (the central directory) is missing: the download or copy stopped early.
    case cutShort(file: String)
    /// The central directory or a local header does not add up.
    case corrupt(file: String)
    /// An entry is encrypted.
    case encrypted(file: String, entry: String)
    /// An entry uses a compression method other than stored (0) or deflate (8).
    case unsupportedMethod(file: String, entry: String, method: UInt16)
    /// An entry's bytes do not match its CRC-32 or its recorded size.
    case checksumMismatch(file: String, entry: String)

    public var description: String {
        switch self {
        case let .unreadable(file):
            "\(file) cannot be opened for reading: check the path and its permissions."
        case let .notAZip(file):
            "\(file) is not a zip archive: give Efferent the export.zip the Health app made, or the export.xml inside it."
        case let .cutShort(file):
            "\(file) is cut short: copy it again, or export it again from the Health app."
        case let .corrupt(file):
            "\(file) is damaged (its table of contents does not add up): export it again from the Health app."
        case let .encrypted(file, entry):
            "\(entry) in \(file) is encrypted, which Efferent cannot read: export again from the Health app and pass the zip unchanged."
        case let .unsupportedMethod(file, entry, method):
            "\(entry) in \(file) is compressed with zip method \(method), which Efferent cannot read: unzip it and pass the export.xml instead."
        case let .checksumMismatch(file, entry):
            "\(entry) in \(file) fails its checksum, so the archive is damaged: export it again from the Health app."
        }
    }
}
