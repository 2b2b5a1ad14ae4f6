import EfferentCore
import Foundation

/// One subcommand: a spec that says what it takes, and a run that does it.
public protocol Subcommand {
    static var spec: CommandSpec { get }
    /// Reads and validates the parsed arguments; throws `UsageError` for anything unusable.
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Does the work; returns the process exit code. Errors thrown here are printed as
    /// `error: <sentence>` with exit code 1 (or the error's own `exitCode`).
    func run() async throws -> Int32
}

/// An error that knows which exit code it deserves (sysexits.h).
public protocol ExitCodeError: Error {
    var exitCode: Int32 { get }
}

/// A tool made of subcommands: `tool SUBCOMMAND [options]`, `tool --help`, `tool SUBCOMMAND --help`.
public struct CommandLineTool {
    public let name: String
    public let abstract: String
    public let version: String
    public let subcommands: [any Subcommand.Type]

    public init(name: String, abstract: String, version: String, subcommands: [any Subcommand.Type]) {
        self.name = name
        self.abstract = abstract
        self.version = version
        self.subcommands = subcommands
    }

    public var help: String {
        var lines = ["USAGE: \(name) <subcommand> [options]", "", abstract, "", "SUBCOMMANDS:"]
        for command in subcommands { lines.append(CommandSpec.row(command.spec.name, command.spec.abstract)) }
        lines += ["", "See '\(name) <subcommand> --help' for what each takes."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses `arguments` (without the program name), runs the subcommand, returns the exit code.
    public func run(_ arguments: [String]) async -> Int32 {
        guard let first = arguments.first else {
            FileHandle.standardError.write(Data(help.utf8))
            return 64
        }
        if first == "--help" || first == "-h" || first == "help" {
            print(help, terminator: "")
            return 0
        }
        if first == "--version" {
            print("\(name) \(version)")
            return 0
        }
        guard let command = subcommands.first(where: { $0.spec.name == first }) else {
            let guess = NearestName.closest(to: first, in: subcommands.map { $0.spec.name }).map { " Did you mean '\($0)'?" } ?? ""
            FileHandle.standardError.write(Data("error: '\(first)' is not a subcommand of \(name).\(guess) See '\(name) --help' for them all.\n".utf8))
            return 64
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.helpRequested {
                print(command.spec.help(tool: name), terminator: "")
                return 0
            }
            let instance = try command.init(parsed)
            return try await instance.run()
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return (error as? ExitCodeError)?.exitCode ?? 1
        }
    }
}
