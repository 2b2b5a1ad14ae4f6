/// What a subcommand accepts: its name, one-line abstract, options and positional arguments.
/// Help text is generated from it, so what `--help` says is what the parser takes.
public struct CommandSpec: Sendable {
    public struct Option: Sendable {
        public let name: String
        /// The placeholder shown in help (`DIR`, `URL`); `nil` for a flag that takes no value.
        public let value: String?
        public let help: String
        public let defaultText: String?
        public let repeatable: Bool

        public init(_ name: String, value: String? = nil, help: String, default defaultText: String? = nil, repeatable: Bool = false) {
            self.name = name
            self.value = value
            self.help = help
            self.defaultText = defaultText
            self.repeatable = repeatable
        }

        public static func flag(_ name: String, help: String) -> Option { Option(name, help: help) }
    }

    public struct Argument: Sendable {
        public let name: String
        public let help: String
        public let optional: Bool
        /// The last argument only: it takes every positional argument left (`KIT...`).
        public let variadic: Bool
        public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
            self.name = name
            self.help = help
            self.optional = optional
            self.variadic = variadic
        }
    }

    public let name: String
    public let abstract: String
    public let discussion: String?
    public let options: [Option]
    public let arguments: [Argument]

    public init(name: String, abstract: String, discussion: String? = nil, options: [Option] = [], arguments: [Argument] = []) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
    }

    /// The help text: usage line, abstract, arguments and options with their defaults.
    public func help(tool: String) -> String {
        var usage = "\(tool) \(name)"
        for argument in arguments {
            let name = argument.variadic ? argument.name + "..." : argument.name
            usage += argument.optional ? " [\(name)]" : " \(name)"
        }
        if !options.isEmpty { usage += " [options]" }
        var lines = ["USAGE: \(usage)", "", abstract]
        if let discussion { lines += ["", discussion] }
        if !arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for argument in arguments { lines.append(Self.row(argument.name, argument.help)) }
        }
        lines += ["", "OPTIONS:"]
        for option in options {
            let left = "--\(option.name)" + (option.value.map { " \($0)" } ?? "")
            var text = option.help
            if let defaultText = option.defaultText { text += " (default: \(defaultText))" }
            lines.append(Self.row(left, text))
        }
        lines.append(Self.row("-h, --help", "Show this help."))
        return lines.joined(separator: "\n") + "\n"
    }

    static func row(_ left: String, _ right: String) -> String {
        let padded = left.count < 26 ? left + String(repeating: " ", count: 26 - left.count) : left + "\n" + String(repeating: " ", count: 28)
        return "  " + padded + right
    }
}
