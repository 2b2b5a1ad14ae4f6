import EfferentClient
import EfferentCommandLine
import EfferentWriter
import Foundation

struct Zone: Subcommand {
    static let spec = CommandSpec(
        name: "zone",
        abstract: "Show the zone days are cut in, or change it: every day is re-cut, re-sealed and uploaded again.",
        discussion: """
        efferent zone                      the zone, and whether the last import agreed with it
        efferent zone set Europe/Berlin    re-file every record under its day in that zone and push every day again;
                                           readers pick the new days up on their next sync
        """,
        options: [.flag("no-push", help: "Re-cut only; the next efferent push uploads the days."), PriorityOption.option],
        arguments: [.init("set", help: "set, to change the zone.", optional: true), .init("ZONE", help: "An IANA zone such as Europe/Berlin.", optional: true)])

    let zone: String?
    let push: Bool
    let priority: SourcePriority

    init(_ arguments: ParsedArguments) throws(UsageError) {
        switch (arguments.argument(0), arguments.argument(1)) {
        case (nil, nil): zone = nil
        case let ("set", name?):
            guard TimeZone(identifier: name) != nil else {
                throw UsageError("\(name) is not a time zone this machine knows; give an IANA name such as Europe/Berlin (timedatectl list-timezones lists them).")
            }
            zone = name
        case ("set", nil): throw UsageError("zone set needs a zone, such as efferent zone set Europe/Berlin.")
        case let (word?, _): throw UsageError("zone takes set ZONE, not '\(word)'.")
        default: zone = nil
        }
        push = !arguments.flag("no-push")
        priority = try PriorityOption.parse(arguments)
    }

    func run() async throws -> Int32 {
        let context = try WriterContext()
        guard let zone else {
            print("days are cut in \(context.settings.timeZone)" + (context.settings.timeZonePinned ? "" : " until the first import shows the zone"))
            if let warning = context.zoneWarning { note("warning: " + warning) }
            return 0
        }
        let before = context.settings.timeZone
        guard zone != before else {
            print("days are already cut in \(zone)")
            return 0
        }
        let moved = try await context.changeZone(to: zone)
        print("days are cut in \(zone) now (they were cut in \(before)): \(moved) records moved to another day, and every day goes again")
        guard push else {
            print("next: efferent push")
            return 0
        }
        let report = try await context.push(check: .never, priority: priority, progress: nil)
        print("sent \(report.sent) days in \(report.requests) requests (\(report.bytes) bytes); readers see the new days on their next sync")
        return report.refused > 0 ? 1 : 0
    }
}
