internal import CQRencode

/// A QR code (ISO/IEC 18004) made by libqrencode (https://fukuchi.org/works/qrencode/manual/):
/// the square of modules, dark or light, for text a phone's camera reads — the pairing link of
/// `efferent receive pair`. Drawing it is the caller's business.
public struct QRCode: Sendable, Equatable {
    /// Modules per side (21 for version 1, 4 more per version).
    public let size: Int
    /// Row by row, `true` for a dark module.
    public let modules: [Bool]

    /// How much of the code may be damaged and still read; more correction makes a bigger code.
    public enum Correction: Sendable {
        case low, medium, quartile, high

        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    /// The smallest code holding `text` as 8-bit bytes (UTF-8), case kept.
    public init(encoding text: String, correction: Correction = .medium) throws(QRCodeError) {
        // Version 0 asks for the smallest version that fits; QR_MODE_8 keeps every byte as it is.
        guard let code = QRcode_encodeString8bit(text, 0, correction.level) else { throw .tooLong(text.utf8.count) }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { throw .tooLong(text.utf8.count) }
        // Bit 0 of each byte is the module's colour (1 dark); the other bits say what it is part of.
        size = width
        modules = (0..<(width * width)).map { data[$0] & 1 == 1 }
    }

    /// Whether the module at `row`, `column` is dark; outside the code (the quiet zone) is light.
    public func isDark(row: Int, column: Int) -> Bool {
        guard row >= 0, row < size, column >= 0, column < size else { return false }
        return modules[row * size + column]
    }
}

public enum QRCodeError: Error, Equatable, CustomStringConvertible {
    case tooLong(Int)

    public var description: String {
        switch self {
        case let .tooLong(bytes): "\(bytes) bytes do not fit in a QR code; use a shorter URL."
        }
    }
}
