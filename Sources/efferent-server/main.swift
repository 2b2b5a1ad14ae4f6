import EfferentSystem
import EfferentCommandLine
import EfferentServer
import Foundation

// Archives, backups and logs are the operator's alone: every file this process creates is 0600.
FileDurability.restrictNewFilesToOwner()

/// `efferent-server`: thin — parse the arguments, call the service library, print.
let tool = CommandLineTool(
    name: "efferent-server",
    abstract: "The Efferent archive service: stores whole sealed days it cannot open.",
    version: "0.1.0",
    subcommands: [Serve.self, Invite.self, List.self, Stats.self, Backup.self, RemoveBucket.self, MigrateStore.self])
exit(await tool.run(Array(CommandLine.arguments.dropFirst())))
