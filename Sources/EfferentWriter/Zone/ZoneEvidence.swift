import EfferentClient
import EfferentCore
import Foundation

/// What an input says about the zone its records were made in (decision A.4), gathered while it
/// is read: the zones records name (`HKTimeZone` metadata, a PulsHealth batch's `timeZoneID`),
/// the UTC offsets Apple writes on every date (all of one export carry the phone's offset at
/// export time), and the export's own date.
public struct ZoneEvidence: Sendable, Equatable {
    /// Zone names records carry, with how many carry each.
    public var named: [String: Int] = [:]
    /// Offsets (seconds east of UTC) dates were written with, with how many dates carry each.
    public var offsets: [Int: Int] = [:]
    /// `ExportDate`: when the export was taken, and the offset written on it.
    public var exportInstant: Double?
    public var exportOffset: Int?
    /// The latest record start seen, where offsets are compared when there is no export date.
    public var latestInstant: Double?

    public init(named: [String: Int] = [:]) { self.named = named }

    public var isEmpty: Bool { named.isEmpty && offsets.isEmpty && exportOffset == nil }

    public mutating func merge(_ other: ZoneEvidence) {
        named.merge(other.named, uniquingKeysWith: +)
        offsets.merge(other.offsets, uniquingKeysWith: +)
        exportInstant = other.exportInstant ?? exportInstant
        exportOffset = other.exportOffset ?? exportOffset
        if let latest = other.latestInstant { latestInstant = max(latestInstant ?? latest, latest) }
    }

    /// `count` dates written with `offset`, the latest of them at `instant`.
    mutating func saw(offset: Int, count: Int, latest instant: Double) {
        offsets[offset, default: 0] += count
        if instant > (latestInstant ?? -.infinity) { latestInstant = instant }
    }

    /// The zone most records name that this machine knows, with its count.
    var namedZone: (zone: ZoneCalendar, count: Int)? {
        for (name, count) in named.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            if let zone = ZoneCalendar(identifier: name) { return (zone, count) }
        }
        return nil
    }

    /// The offset the dates were written with, and the instant it held at.
    var writtenOffset: (offset: Int, at: Double)? {
        if let exportOffset, let exportInstant { return (exportOffset, exportInstant) }
        guard let common = offsets.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key, let latestInstant else { return nil }
        return (common, latestInstant)
    }

    /// The zone to cut days in, and why, for an archive whose zone is not pinned yet; nil when the
    /// input says nothing about zones (events files).
    public func decision(machineZone: String) -> ZoneDecision? {
        if let (zone, count) = namedZone {
            return ZoneDecision(zone: zone.identifier, reason: "\(count) of its records name the zone \(zone.identifier) (HKTimeZone)")
        }
        guard let (offset, at) = writtenOffset else { return nil }
        let written = Self.offsetText(offset)
        if let machine = ZoneCalendar(identifier: machineZone), machine.offset(at: at) == Int64(offset) {
            return ZoneDecision(zone: machineZone, reason: "it names no zone and its dates are written at \(written), as this machine's zone \(machineZone) is then")
        }
        if offset % 3600 == 0, let fixed = Self.fixedZone(offset) {
            return ZoneDecision(zone: fixed, reason: "it names no zone and its dates are written at \(written), so days are cut at \(written) all year; "
                                + "`efferent zone set Region/City` names your zone with its summer time")
        }
        return ZoneDecision(zone: machineZone, reason: "it names no zone and its dates are written at \(written), which no whole-hour zone holds; "
                            + "`efferent zone set Region/City` names yours")
    }

    /// A sentence when the input shows records made in another zone than `pinned`: the zone they
    /// name (or the offset they are written at), the pinned one, and the command that fixes it.
    /// Zones that keep the same offsets (Europe/Paris and Europe/Berlin) agree.
    public func disagreement(with pinned: ZoneCalendar) -> String? {
        if let (zone, count) = namedZone {
            guard zone.identifier != pinned.identifier else { return nil }
            let at = writtenOffset?.at ?? latestInstant ?? Date().timeIntervalSince1970
            // Winter and summer of the year the records reach: DST rules differ as often as offsets.
            let probes = [at, at - 182 * 86_400]
            guard probes.contains(where: { zone.offset(at: $0) != pinned.offset(at: $0) }) else { return nil }
            return "\(count) records of this input name the zone \(zone.identifier), but this archive cuts its days in \(pinned.identifier), "
                + "so its days and totals will not match the Health app's; `efferent zone set \(zone.identifier)` re-cuts every day"
        }
        guard let (offset, at) = writtenOffset, pinned.offset(at: at) != Int64(offset) else { return nil }
        return "this input writes its dates at \(Self.offsetText(offset)), but this archive's zone \(pinned.identifier) is at "
            + "\(Self.offsetText(Int(pinned.offset(at: at)))) then, so its days and totals will not match the Health app's; "
            + "`efferent zone set Region/City` (your zone) re-cuts every day"
    }

    /// `+02:00`, `-05:30`, `+00:00`.
    static func offsetText(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return (seconds < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// The IANA fixed-offset zone for a whole-hour offset (`Etc/GMT-2` is two hours east: the
    /// sign is POSIX's, reversed), or UTC.
    static func fixedZone(_ offset: Int) -> String? {
        let hours = offset / 3600
        let name = hours == 0 ? "Etc/UTC" : "Etc/GMT" + (hours > 0 ? "-" : "+") + "\(abs(hours))"
        return ZoneCalendar(identifier: name) == nil ? nil : name
    }
}

/// A zone chosen for an archive, and the reason said to its owner.
public struct ZoneDecision: Sendable, Equatable {
    public let zone: String
    public let reason: String
}

/// What settling an archive's zone against an input's evidence did.
public enum ZoneOutcome: Sendable, Equatable {
    /// The zone was not pinned yet and now is; `recut` says whether records already stored were
    /// re-filed into its days.
    case pinned(ZoneDecision, recut: Bool)
    /// Pinned already, and the input agrees (or says nothing).
    case agrees
    /// Pinned already, and the input's records were made elsewhere: the warning to print.
    case disagrees(String)
}
