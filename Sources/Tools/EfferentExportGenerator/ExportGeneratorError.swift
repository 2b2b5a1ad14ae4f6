/// Why an export could not be written.
public enum ExportGeneratorError: Error, Equatable, CustomStringConvertible {
    case cannotCreate(String)
    case noOpenEntry

    public var description: String {
        switch self {
        case let .cannotCreate(path): "Could not create \(path); check that its folder exists and is writable."
        case .noOpenEntry: "Bytes were written to the zip with no entry open; this is a bug in the generator."
        }
    }
}
