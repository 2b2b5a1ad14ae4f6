import EfferentCore

/// The arguments of one subcommand after parsing against its `CommandSpec`, with typed getters
/// that throw a `UsageError` naming the option and what it wants.
public struct ParsedArguments: Sendable {
    public let spec: CommandSpec
    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positional: [String] = []
    public private(set) var helpRequested = false

    /// Parses `arguments` (everything after the subcommand's name). `--name value`,
    /// `--name=value` and flags; `--` ends options.
    public init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positional.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "-h" || argument == "--help" { helpRequested = true; continue }
            guard argument.hasPrefix("--") else {
                throw UsageError("\(argument) is not an option of '\(spec.name)'; see --help (an argument that begins with '-' goes after --).")
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                let guess = NearestName.closest(to: name, in: spec.options.map(\.name)).map { " Did you mean --\($0)?" } ?? ""
                throw UsageError("--\(name) is not an option of '\(spec.name)'.\(guess) See --help.")
            }
            if option.value == nil {
                guard inline == nil else { throw UsageError("--\(name) takes no value.") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else { throw UsageError("--\(name) needs a value (\(option.value ?? "VALUE")).") }
                value = arguments[index]
                index += 1
            }
            if values[name] != nil && !option.repeatable { throw UsageError("--\(name) is given twice; give it once.") }
            values[name, default: []].append(value)
        }
        if helpRequested { return }
        let required = spec.arguments.filter { !$0.optional }.count
        guard positional.count >= required else {
            throw UsageError("'\(spec.name)' needs \(spec.arguments[positional.count].name); see --help.")
        }
        guard positional.count <= spec.arguments.count || spec.arguments.last?.variadic == true else {
            throw UsageError("'\(spec.name)' does not take \(positional[spec.arguments.count]); see --help.")
        }
    }

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func string(_ name: String) -> String? { values[name]?.last }
    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    public func string(_ name: String, default fallback: String) -> String { string(name) ?? fallback }

    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = string(name) else { throw UsageError("'\(spec.name)' needs --\(name).") }
        return value
    }

    public func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>? = nil) throws(UsageError) -> Int {
        guard let text = string(name) else { return fallback }
        guard let value = Int(text) else { throw UsageError("--\(name) takes a whole number, not '\(text)'.") }
        if let range, !range.contains(value) {
            throw UsageError("--\(name) must be between \(range.lowerBound) and \(range.upperBound).")
        }
        return value
    }

    /// A positional argument by its index.
    public func argument(_ index: Int) -> String? { index < positional.count ? positional[index] : nil }
}

/// A command line the tool cannot act on: printed on stderr, exit code 64 (EX_USAGE).
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
