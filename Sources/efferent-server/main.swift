import EfferentSystem
import EfferentCommandLine
import EfferentCore
import EfferentServer
import Foundation

// Archives, backups and logs are the operator's alone: every file this process creates is 0600.
FileDurability.restrictNewFilesToOwner()

/// `efferent-server`: thin — parse the arguments, call the service library, print.
let tool = CommandLineTool(
    name: "efferent-server",
    abstract: "The Efferent archive service: stores whole sealed days it cannot open.",
    version: PackageVersion.text,
    subcommands: [Serve.self, Invite.self, List.self, Stats.self, Backup.self, RemoveBucket.self, MigrateStore.self])

var arguments = Array(CommandLine.arguments.dropFirst())
if let name = arguments.first, let command = tool.subcommands.first(where: { $0.spec.name == name }) {
    do {
        // The settings file (/etc/efferent-server/efferent-server.conf when installed from the
        // package) fills in what the command line leaves out.
        if let config = try ConfigFile.load() {
            arguments = [name] + config.arguments(for: command.spec, given: Array(arguments.dropFirst()))
        }
        // Run as root against the service user's data directory: act as that user (ProcessIdentity).
        if let parsed = try? ParsedArguments(Array(arguments.dropFirst()), spec: command.spec), !parsed.helpRequested,
           command.spec.options.contains(where: { $0.name == "data" }),
           case let .sqlite(directory)? = try? StoreChoice(parsed) {
            _ = try ProcessIdentity.becomeOwner(of: directory)
        }
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(64)
    }
}
exit(await tool.run(arguments))
