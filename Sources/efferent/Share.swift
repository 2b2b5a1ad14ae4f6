import EfferentClient
import EfferentCommandLine
import EfferentCore
import EfferentQRCode
import EfferentReader
import Foundation

/// `efferent share`: a slice of the archive as a SMART Health Link a clinician opens in any
/// browser (or any SHL-aware app); `share list`, `share revoke`, `share refresh` manage them.
struct Share: Subcommand {
    static let spec = CommandSpec(
        name: "share",
        abstract: "Share a span of your data with a doctor as a SMART Health Link: a FHIR R4 bundle, encrypted here, opened in any browser.",
        discussion: """
        efferent share                    makes a link: daily summaries of the vital signs, activity and sleep the archive holds
        efferent share list               every link of this archive: state, expiry, who opened it and when
        efferent share revoke ID|LINK     ends a link now (its id as listed, its first characters, or the link itself)
        efferent share refresh [ID]       seals long-term links again now (efferent sync does when their days change)
        The link carries its own key: the service stores only what it cannot open. Anyone holding the link (or its
        QR code) can open it until it expires or is revoked; with --passcode they also need the passcode.
        """,
        options: [
            .init("since", value: "DAY", help: "First day to share (YYYY-MM-DD).", default: "90 days before --until"),
            .init("until", value: "DAY", help: "Last day, inclusive.", default: "today"),
            .init("metric", value: "NAME", help: "A metric to share (efferent daily's names, bloodPressure, sleep, workouts); repeatable.",
                  default: "the vital signs, steps, sleep and workouts the archive holds", repeatable: true),
            .flag("raw", help: "Also every reading of each metric, not only daily summaries."),
            .init("expires", value: "WHEN", help: "When the link stops working: 30d, 12h, 2w, or a date (YYYY-MM-DD, the end of that day).", default: "30d"),
            .init("passcode", value: "TEXT", help: "A passcode the recipient must type (flag P); 10 wrong tries lock the link."),
            .init("passcode-file", value: "FILE", help: "Read the passcode from a file instead (keeps it out of shell history)."),
            .init("label", value: "TEXT", help: "A short description shown with the link (at most 80 characters)."),
            .init("name", value: "TEXT", help: "The patient's name, put in the bundle.", default: "none: the archive holds no name"),
            .flag("long-term", help: "A long-term link (flag L): sealed again with new days whenever efferent sync brings some, until it expires."),
            .init("public-url", value: "URL", help: "The address a doctor reaches the service at.", default: "the service address of this profile"),
            .flag("links", help: "list: also print each link this profile made (the link holds its key)."),
            .flag("force", help: "refresh: seal again even when no day changed."),
            .flag("json", help: "Print JSON instead of text."),
            .flag("no-qr", help: "Do not draw the QR code."),
            .flag("offline", help: "Share from the mirror as it is, without asking the service for changes first."),
        ],
        arguments: [.init("ACTION", help: "list, revoke or refresh; none makes a link.", optional: true),
                    .init("LINK", help: "revoke: the link's id, the first characters of it, or the link; refresh: an id.", optional: true)])

    enum Action { case make, list, revoke(String), refresh(String?) }

    let action: Action
    let request: ShareRequest
    let expires: Expiry
    let passcode: String?
    let longTerm: Bool
    let publicURL: String?
    let showLinks: Bool
    let force: Bool
    let json: Bool
    let qr: Bool
    let offline: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let positional = arguments.positional
        switch positional.first {
        case nil: action = .make
        case "list"?:
            guard positional.count == 1 else { throw UsageError("share list takes no link.") }
            action = .list
        case "revoke"?:
            guard positional.count == 2 else { throw UsageError("share revoke takes the link to end: its id (as share list shows it), its first characters, or the link.") }
            action = .revoke(positional[1])
        case "refresh"?: action = .refresh(positional.count == 2 ? positional[1] : nil)
        case let other?: throw UsageError("share takes list, revoke or refresh, not '\(other.prefix(40))'; with no word it makes a link.")
        }
        let since = try ReadingOptions.day(arguments, "since")
        let until = try ReadingOptions.day(arguments, "until")
        if let since, let until, until < since { throw UsageError("--until \(until) is before --since \(since).") }
        longTerm = arguments.flag("long-term")
        if longTerm && until != nil { throw UsageError("a long-term link runs through the newest day; leave out --until.") }
        let label = arguments.string("label")
        if let label, label.count > SHLink.maxLabelCharacters { throw UsageError("--label takes at most 80 characters (the IG's limit).") }
        request = ShareRequest(since: since, until: until, metrics: arguments.strings("metric"), raw: arguments.flag("raw"),
                               name: arguments.string("name"), label: label)
        expires = try Expiry(arguments.string("expires") ?? "30d")
        var passcode = arguments.string("passcode")
        if let file = arguments.string("passcode-file") {
            guard passcode == nil else { throw UsageError("give --passcode or --passcode-file, not both.") }
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                throw UsageError("--passcode-file \(file) cannot be read.")
            }
            passcode = text.trimmingCharacters(in: .newlines)
        }
        if let passcode, !LinkLimits.passcodeBytes.contains(passcode.utf8.count) {
            throw UsageError("a passcode is \(LinkLimits.passcodeBytes.lowerBound) to \(LinkLimits.passcodeBytes.upperBound) bytes long.")
        }
        self.passcode = passcode
        publicURL = arguments.string("public-url")
        if let publicURL, !(publicURL.hasPrefix("https://") || publicURL.hasPrefix("http://")) {
            throw UsageError("--public-url must start with https:// (or http://).")
        }
        showLinks = arguments.flag("links")
        force = arguments.flag("force")
        json = arguments.flag("json")
        qr = !arguments.flag("no-qr")
        offline = arguments.flag("offline")
    }

    func run() async throws -> Int32 {
        let context = try ReaderContext()
        let sharer = LinkSharer(context: context)
        switch action {
        case .make: return try await make(context, sharer)
        case .list: return try await list(sharer)
        case let .revoke(asked):
            let (id, revoked) = try await sharer.revoke(asked)
            print(revoked ? "revoked \(id): the service answers no one for it and has deleted its files"
                          : "\(id) had already ended (expired, revoked or locked); nothing to do")
            return 0
        case let .refresh(asked):
            let source = try await ReadingOptions.freshSource(context, offline: offline)
            let only = try asked.map { text throws -> LinkID in
                guard let id = try sharer.shelf.all().first(where: { $0.id.rawValue.hasPrefix(text) })?.id else { throw ShareError.unknownShare(text) }
                return id
            }
            let done = try await sharer.refresh(source: source, only: only, force: force)
            if done.isEmpty { print("this profile made no long-term link that is still live") }
            for item in done { print(ShareText.refreshed(item)) }
            return 0
        }
    }

    func make(_ context: ReaderContext, _ sharer: LinkSharer) async throws -> Int32 {
        let source = try await ReadingOptions.freshSource(context, offline: offline)
        let ends = try expires.seconds(now: Date(), zone: context.settings.timeZone)
        let made = try await sharer.share(request, source: source, expires: ends, passcode: passcode, longTerm: longTerm, base: publicURL)
        for line in made.notes { note(line) }
        let record = made.record
        if let warning = ShareText.reachability(record.viewer) { note(warning) }
        if json {
            let object: JSONValue = .object(["id": .string(record.id.rawValue), "link": .string(record.link.text),
                                             "viewer": .string(made.viewerLink), "expires": .number(Double(ends)),
                                             "files": .number(Double(record.files)), "bytes": .number(Double(record.bytes)),
                                             "flags": .string(record.link.flags.text), "through": .string(record.sealedThrough.description)])
            print(String(decoding: try object.canonicalBytes(), as: UTF8.self))
            return 0
        }
        print("link    \(record.link.text)")
        print("viewer  \(made.viewerLink)")
        if qr {
            for line in try QRCode(encoding: made.viewerLink, correction: .medium).terminalLines(colors: Environment.isTerminal) { print(line) }
        }
        print("id      \(record.id)")
        print("shares  \(record.request.label.map { "\($0): " } ?? "")\(ShareText.span(record, through: record.sealedThrough)); "
              + "\(record.files) file\(record.files == 1 ? "" : "s"), \(record.bytes) bytes sealed")
        print("expires \(ShareText.date(ends, zone: context.settings.timeZone))"
              + (passcode != nil ? "; the recipient needs the passcode (10 wrong tries lock the link)" : "")
              + (longTerm ? "; long-term: efferent sync seals it again as new days arrive" : ""))
        note("Anyone holding this link or its QR code can read what it shares until it expires; efferent share revoke \(Self.argument(record.id.rawValue.prefix(8))) ends it.")
        return 0
    }

    /// An id as a command line takes it: one that begins with `-` (base64url has it) after `--`.
    static func argument(_ id: Substring) -> String { id.hasPrefix("-") ? "-- \(id)" : String(id) }

    func list(_ sharer: LinkSharer) async throws -> Int32 {
        let listings = try await sharer.list()
        if json {
            for item in listings { print(String(decoding: try ShareText.json(item, showLink: showLinks).canonicalBytes(), as: UTF8.self)) }
            return 0
        }
        if listings.isEmpty { print("this archive has no shared links") }
        for item in listings { print(ShareText.row(item, showLink: showLinks)) }
        return 0
    }
}

/// `--expires`: a duration from now (`30d`, `12h`, `90m`, `2w`) or the last day it works.
struct Expiry {
    enum Kind { case seconds(Int64), through(CalendarDay) }
    let kind: Kind

    init(_ text: String) throws(UsageError) {
        if let day = CalendarDay(text) { kind = .through(day); return }
        // Seconds too, for a drill or a test; a person means minutes at least.
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let last = text.last, let unit = units[last], let count = Int64(text.dropLast()), count > 0 else {
            throw UsageError("--expires takes a duration such as 30d, 12h, 90m or 2w, or a date written YYYY-MM-DD.")
        }
        let seconds = count.multipliedReportingOverflow(by: unit)
        guard !seconds.overflow, seconds.partialValue <= LinkLimits.maxLifetimeSeconds else {
            throw UsageError("--expires may be at most \(LinkLimits.maxLifetimeSeconds / 86_400) days away.")
        }
        kind = .seconds(seconds.partialValue)
    }

    /// The moment, in Unix seconds: a date ends at midnight after it in the archive's zone.
    func seconds(now: Date, zone: String) throws -> Int64 {
        let current = Int64(now.timeIntervalSince1970)
        switch kind {
        case let .seconds(span): return current + span
        case let .through(day):
            let end = (ZoneCalendar(identifier: zone) ?? .utc).start(of: day.next)
            guard end > current else { throw UsageError("--expires \(day) is already past.") }
            guard end - current <= LinkLimits.maxLifetimeSeconds else {
                throw UsageError("--expires may be at most \(LinkLimits.maxLifetimeSeconds / 86_400) days away.")
            }
            return end
        }
    }
}
