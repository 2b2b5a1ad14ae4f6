import EfferentCore

/// The bodies of Efferent's libFuzzer targets: each takes arbitrary bytes and drives one parser of
/// outside input. A parser may refuse the bytes; it must never trap, hang or allocate without bound.
/// Each also checks one property that must hold whenever the parser accepts.
public enum FuzzEntry {
    /// `JSONParser`: accepted text re-serialises canonically and parses back to the same value.
    public static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return }
        guard let canonical = try? value.canonicalBytes() else { fatalError("a parsed value did not serialise") }
        guard (try? JSONParser.parse(canonical)) == value else { fatalError("canonical JSON did not read back") }
    }
}
