import EfferentClient
import EfferentCore
import EfferentReader
import Foundation

/// How `efferent share` says things on the terminal.
enum ShareText {
    static func date(_ seconds: Int64, zone: String) -> String {
        let shown = LocalClock().shown(seconds, in: zone)
        // 2026-05-01T14:02:00+02:00 → 2026-05-01 14:02 +02:00
        guard shown.count >= 25 else { return shown }
        return String(shown.prefix(10)) + " " + String(shown.dropFirst(11).prefix(5)) + " " + String(shown.suffix(6))
    }

    static func span(_ record: LinkShelf.Record, through: CalendarDay) -> String {
        let metrics = record.request.metrics.isEmpty ? "the default metrics" : record.request.metrics.joined(separator: ", ")
        let from = record.request.since.map(\.description) ?? "the last \(ShareRequest.defaultDays) days"
        return "\(from) … \(through), \(metrics)\(record.request.raw ? " with every reading" : "")"
    }

    static func refreshed(_ item: LinkSharer.Refreshed) -> String {
        let name = "\(item.id.rawValue.prefix(8))\(item.label.map { " (\($0))" } ?? "")"
        if let version = item.version { return "sealed long-term link \(name) again: version \(version)" }
        return "long-term link \(name): \(item.note ?? "no day it covers changed; left as it was")"
    }

    /// A sentence when a doctor elsewhere is unlikely to open the viewer: an address only this
    /// machine or this network reaches, or plain HTTP (a browser decrypts only over HTTPS, or on
    /// the machine it runs on).
    static func reachability(_ viewer: String) -> String? {
        guard let url = URL(string: viewer), let host = url.host?.lowercased() else { return nil }
        let local = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        let privateNet = host.hasPrefix("10.") || host.hasPrefix("192.168.") || host.hasSuffix(".local")
            || (host.hasPrefix("172.") && (16...31).contains(Int(host.split(separator: ".").dropFirst().first ?? "") ?? 0))
        if local { return "note: this link names \(host), which only this machine reaches; give --public-url https://… for a doctor elsewhere." }
        if privateNet { return "note: this link names \(host), an address of your own network; a doctor elsewhere needs --public-url https://…." }
        if url.scheme == "http" { return "note: this link is plain http; browsers decrypt only over https, so put the service behind TLS (documents/operations.md)." }
        return nil
    }

    static func json(_ item: LinkSharer.Listing, showLink: Bool) -> JSONValue {
        let link = item.listed
        var object: [String: JSONValue] = [
            "id": .string(link.id.rawValue), "status": .string(link.status), "created": .string(link.created), "expires": .string(link.expires),
            "longTerm": .bool(link.longTerm), "passcode": .bool(link.passcode), "failures": .number(Double(link.failures)),
            "files": .number(Double(link.files)), "bytes": .number(Double(link.bytes)), "opened": .number(Double(link.opened)),
            "accesses": .array(link.accesses.map { .object(["at": .string($0.at), "recipient": .string($0.recipient)]) }),
        ]
        if let ended = link.ended { object["ended"] = .string(ended) }
        if let record = item.record {
            if let label = record.request.label { object["label"] = .string(label) }
            object["version"] = .number(Double(record.version))
            if showLink { object["link"] = .string(record.link.viewerLink(viewer: record.viewer)) }
        }
        return .object(object)
    }

    static func row(_ item: LinkSharer.Listing, showLink: Bool) -> String {
        let link = item.listed
        var lines = ["\(link.id.rawValue.prefix(10))  \(link.status)\(item.record?.request.label.map { "  \($0)" } ?? "")"]
        var facts = ["made \(link.created.prefix(16))", link.ended.map { "ended \($0.prefix(16))" } ?? "expires \(link.expires.prefix(16))",
                     "\(link.files) file\(link.files == 1 ? "" : "s"), \(link.bytes) bytes"]
        if link.longTerm { facts.append("long-term") }
        if link.passcode { facts.append("passcode, \(link.failures) wrong tr\(link.failures == 1 ? "y" : "ies")") }
        lines.append("    " + facts.joined(separator: "; "))
        if link.opened == 0 {
            lines.append("    never opened")
        } else {
            lines.append("    opened \(link.opened) time\(link.opened == 1 ? "" : "s")"
                         + (link.accesses.first.map { ", last \($0.at.prefix(16)) by \"\($0.recipient)\"" } ?? ""))
        }
        if showLink, let record = item.record { lines.append("    " + record.link.viewerLink(viewer: record.viewer)) }
        return lines.joined(separator: "\n")
    }
}
