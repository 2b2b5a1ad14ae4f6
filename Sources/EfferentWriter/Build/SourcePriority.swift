/// Which source's samples count where several cover the same time (§4.1: totals are never summed
/// twice). Classes in order — by default the Watch, then the iPhone, then every other app — and
/// within a class, sources by name, so two sources never share a rank.
public struct SourcePriority: Sendable, Equatable {
    /// Name fragments, highest priority first, matched against the device model and the source name.
    public var classes: [String]

    public init(classes: [String] = ["Watch", "iPhone"]) { self.classes = classes }

    /// `Watch,iPhone,Withings` → those classes in that order.
    public init?(parsing text: String) {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !parts.isEmpty else { return nil }
        classes = parts
    }

    /// Names a day total read from layout-1 events; such a source ranks after every other.
    public static let dayTotalSuffix = " (day total)"

    /// The class index of a source (classes.count for "any other app", one more for day totals).
    public func rank(source: String, device: String?) -> Int {
        if source.hasSuffix(Self.dayTotalSuffix) { return classes.count + 1 }
        for (index, fragment) in classes.enumerated() {
            if let device, device.localizedCaseInsensitiveContains(fragment) { return index }
            if source.localizedCaseInsensitiveContains(fragment) { return index }
        }
        return classes.count
    }
}
