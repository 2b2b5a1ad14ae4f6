/// The values a route's pattern captured (`/b/:bucket/d/:day`), each already checked by the
/// parameter's parser while the path was matched.
public struct RouteParameters: Sendable {
    private var values: [String: any Sendable] = [:]

    init() {}

    mutating func set(_ name: String, _ value: any Sendable) { values[name] = value }

    /// The parsed value of `name`. Asking for a name the pattern lacks, or for another type than
    /// its parser made, is a mistake in the route table: a 500 that logs it.
    public func get<Value>(_ name: String, as type: Value.Type = Value.self) throws(RouteTableError) -> Value {
        guard let value = values[name] as? Value else { throw RouteTableError(parameter: name, type: "\(Value.self)") }
        return value
    }
}

/// A handler asked for a parameter its route does not capture as that type.
public struct RouteTableError: Error, CustomStringConvertible {
    public let parameter: String
    public let type: String
    public var description: String { "the route table has no parameter :\(parameter) of type \(type)" }
}
