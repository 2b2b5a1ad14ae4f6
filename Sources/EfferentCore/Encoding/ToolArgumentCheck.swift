/// Checks an MCP tool call's arguments against the tool's `inputSchema`, the subset of JSON Schema
/// our tools use (`type` object, array, string, integer, number, boolean; `properties`,
/// `required`, `enum`, `minimum`, `maximum`, `minItems`, `maxItems`, `items`). A key the schema
/// does not name is refused: a mistyped argument (`groupBy` for `group_by`) must not be dropped
/// and a different question answered. Each refusal is one sentence naming the argument, what it
/// must be, and the nearest name where one was probably meant.
public enum ToolArgumentCheck {
    /// nil when `arguments` fit `schema`; otherwise the sentence saying what does not.
    public static func problem(_ arguments: [String: JSONValue], schema: JSONValue, tool: String) -> String? {
        problem(.object(arguments), schema: schema, path: nil, tool: tool)
    }

    private static func problem(_ value: JSONValue, schema: JSONValue, path: String?, tool: String) -> String? {
        let name = path ?? "the arguments"
        switch schema["type"]?.stringValue {
        case "object":
            guard let members = value.objectValue else { return "\(name) must be an object, not \(kind(of: value))." }
            let properties = schema["properties"]?.objectValue ?? [:]
            for key in members.keys.sorted() where properties[key] == nil {
                let nearest = NearestName.closest(to: key, in: properties.keys).map { " (the nearest is \($0))" } ?? ""
                let takes = properties.isEmpty ? "it takes no arguments" : "it takes " + properties.keys.sorted().joined(separator: ", ")
                let owner = path.map { "an item of \($0)" } ?? tool
                return "\(key.prefix(60)) is not an argument of \(owner)\(nearest); \(takes)."
            }
            for required in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[required] == nil || members[required] == .null {
                return "\(path.map { "each item of \($0)" } ?? tool) needs \(required)."
            }
            for key in members.keys.sorted() {
                if members[key] == .null { continue }
                if let found = problem(members[key]!, schema: properties[key]!, path: path.map { "\($0).\(key)" } ?? key, tool: tool) {
                    return found
                }
            }
            return nil
        case "array":
            guard let items = value.arrayValue else {
                return "\(name) must be a list" + (schema["items"]?["type"]?.stringValue.map { " of \($0)s" } ?? "") + ", not \(kind(of: value))."
            }
            if let least = schema["minItems"]?.integerValue, items.count < least { return "\(name) needs at least \(least) item\(least == 1 ? "" : "s")." }
            if let most = schema["maxItems"]?.integerValue, items.count > most { return "\(name) takes at most \(most) items; \(items.count) were given." }
            guard let itemSchema = schema["items"] else { return nil }
            for (index, item) in items.enumerated() {
                if let found = problem(item, schema: itemSchema, path: "\(name)[\(index)]", tool: tool) { return found }
            }
            return nil
        case "string":
            guard let text = value.stringValue else { return "\(name) must be a string, not \(kind(of: value))." }
            if let allowed = schema["enum"]?.arrayValue?.compactMap(\.stringValue), !allowed.contains(text) {
                let nearest = NearestName.closest(to: text, in: allowed).map { " (the nearest is \($0))" } ?? ""
                let list = allowed.count <= 24 ? "one of " + allowed.joined(separator: ", ") : "one of the \(allowed.count) names tools/list gives for it"
                return "\(name) is \(text.prefix(80)), which is not \(list)\(nearest)."
            }
            return nil
        case "integer", "number":
            let isInteger = schema["type"]?.stringValue == "integer"
            guard let number = value.numberValue, !isInteger || value.integerValue != nil else {
                return "\(name) must be \(isInteger ? "a whole number" : "a number"), not \(kind(of: value))."
            }
            if let least = schema["minimum"]?.numberValue, number < least { return "\(name) must be at least \(format(least)); \(format(number)) was given." }
            if let most = schema["maximum"]?.numberValue, number > most { return "\(name) must be at most \(format(most)); \(format(number)) was given." }
            return nil
        case "boolean":
            return value == .bool(true) || value == .bool(false) ? nil : "\(name) must be true or false, not \(kind(of: value))."
        default:
            return nil
        }
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "true or false"
        case let .number(n): "the number \(format(n))"
        case let .string(text): "the string \"\(text.prefix(40))\""
        case .array: "a list"
        case .object: "an object"
        }
    }

    private static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
