/// Why a frame was refused (protocol §5.1).
///
/// The whole frame is refused, never a part of it; the
/// service answers these as `400 "malformed batch: <description>"`.
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    case noDays
    case leftover(count: Int)
    case notADate(text: String?)
    case short(day: String, says: Int, has: Int)
    case order(previous: String, next: String)
    case emptyBody(day: String)
    case tooLong(day: String)

    public var description: String {
        switch self {
        case .noDays: "the frame carries no days; send at least one"
        case let .leftover(count): "\(count) bytes left over where a day was expected"
        case let .notADate(text?): "\(text) is not a real date"
        case .notADate(nil): "a day in the frame is not a real date"
        case let .short(day, says, has): "\(day) says \(says) bytes and only \(has) are there"
        case let .order(previous, next): "days must ascend without repeats: \(previous) then \(next)"
        case let .emptyBody(day): "\(day) carries no body"
        case let .tooLong(day): "\(day) is longer than a frame can say (4 GiB)"
        }
    }

    /// The day field as text when it is ten printable ASCII characters, so a sentence can quote
    /// it; otherwise `nil`.
    static func printable(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) else { return nil }
        return "\"" + String(decoding: bytes, as: UTF8.self) + "\""
    }
}
