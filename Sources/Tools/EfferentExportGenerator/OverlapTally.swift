/// How lower-priority samples of one metric fared against higher-priority ones.
public struct OverlapTally: Sendable, Equatable, Codable {
    public var fullyCovered: Int
    public var partlyCovered: Int
    public var uncovered: Int
}
