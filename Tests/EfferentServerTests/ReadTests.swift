import EfferentHTTP
import EfferentCore
@testable import EfferentServer
import Foundation
import Testing

/// Listings, days, ranges, stats and the read-key gate (§6, §7), in process and over loopback.
@Suite struct ReadTests {
    /// A claimed bucket holding `count` consecutive days from 2020-01-01, uploaded a month at a time.
    static func archive(_ kind: ServiceKind, count: Int) async throws -> (TestService, StandInWriter, [CalendarDay]) {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        _ = try await service.send(writer.claim())
        let all = days(from: "2020-01-01", count: count)
        for start in stride(from: 0, to: all.count, by: 31) {
            let response = try await service.send(try writer.upload(Array(all[start..<min(start + 31, all.count)])))
            #expect(response.status == 200)
        }
        return (service, writer, all)
    }

    @Test(arguments: ServiceKind.allCases)
    func listingPagesAndBounds(_ kind: ServiceKind) async throws {
        let (service, writer, all) = try await Self.archive(kind, count: 40)
        let b = writer.bucket
        let whole = try await service.send(writer.read("/b/\(b)/days"))
        #expect(whole.status == 200)
        let entries = try #require(whole.json?["days"]?.arrayValue)
        #expect(entries.count == 40 && whole.json?["next"] == .null)
        let first = try #require(entries.first?.objectValue)
        #expect(first["day"] == .string("2020-01-01"))
        #expect(first["bytes"]?.integerValue == Int64(try service.store.day(b, all[0])!.sealed.count))
        let uploaded = try #require(first["uploaded"]?.stringValue)
        #expect(uploaded.count == 24 && uploaded.hasSuffix("Z") && uploaded.contains("."), "toISOString() form with milliseconds")

        var collected = [String]()
        var after: String?
        repeat {
            let target = "/b/\(b)/days?limit=15" + (after.map { "&after=\($0)" } ?? "")
            let page = try await service.send(writer.read(target))
            collected += page.json?["days"]?.arrayValue?.compactMap { $0["day"]?.stringValue } ?? []
            after = page.json?["next"]?.stringValue
        } while after != nil
        #expect(collected == all.map(\.description))

        let bounded = try await service.send(writer.read("/b/\(b)/days?from=2020-01-05&to=2020-01-09"))
        #expect(bounded.json?["days"]?.arrayValue?.compactMap { $0["day"]?.stringValue } == (5...9).map { "2020-01-0\($0)" })
        let exact = try await service.send(writer.read("/b/\(b)/days?from=2020-01-01&to=2020-01-10&limit=10"))
        #expect(exact.json?["next"] == .null, "no next when the page reaches the to bound")
        for bad in ["limit=0", "limit=1001", "from=2020-02-30", "after=yesterday", "from=2020-01-09&to=2020-01-01", "limit=1&limit=2"] {
            let refused = try await service.send(writer.read("/b/\(b)/days?\(bad)"))
            #expect(refused.status == 400, "\(bad)")
        }
        let nobody = try await service.send(HTTPRequest(method: "GET", target: "/b/\(StandInWriter().bucket)/days"))
        #expect(nobody.json == .object(["days": .array([]), "next": .null]))
    }

    @Test(arguments: ServiceKind.allCases)
    func oneDayAndRanges(_ kind: ServiceKind) async throws {
        let (service, writer, all) = try await Self.archive(kind, count: 100)
        let b = writer.bucket
        let one = try await service.send(writer.read("/b/\(b)/d/2020-01-03"))
        #expect(one.status == 200 && one.header("content-type") == "application/octet-stream")
        #expect(one.body == (try service.store.day(b, all[2])!.sealed))
        #expect(one.header("last-modified")?.hasSuffix(" GMT") == true)
        let opened = try SealedEnvelope.open(one.body, with: writer.reading.privateKey, aad: .day(bucket: b.rawValue, day: all[2]))
        #expect(!opened.isEmpty)
        let missing = try await service.send(writer.read("/b/\(b)/d/2021-01-01"))
        #expect(missing.status == 404 && missing.error == "no such day")
        let notADate = try await service.send(writer.read("/b/\(b)/d/2021-02-30"))
        #expect(notADate.status == 400)

        // 100 days come back as a 92-day frame, then the rest after x-efferent-next.
        let first = try await service.send(writer.read("/b/\(b)/d?from=2020-01-01&to=2020-12-31"))
        #expect(first.status == 200)
        let firstDays = try Frame.unpack(first.body, allowingEmpty: true)
        #expect(firstDays.count == 92)
        let next = try #require(first.header("x-efferent-next"))
        #expect(next == all[91].description)
        let second = try await service.send(writer.read("/b/\(b)/d?from=2020-01-01&to=2020-12-31&after=\(next)"))
        #expect(second.header("x-efferent-next") == nil)
        let secondDays = try Frame.unpack(second.body, allowingEmpty: true)
        #expect((firstDays + secondDays).map(\.day) == all)
        #expect(try (firstDays + secondDays).allSatisfy { try Array($0.sealed) == service.store.day(b, $0.day)!.sealed })

        let empty = try await service.send(writer.read("/b/\(b)/d?from=2030-01-01&to=2030-01-31"))
        #expect(empty.status == 200 && empty.body.isEmpty && empty.header("x-efferent-next") == nil)
        let backwards = try await service.send(writer.read("/b/\(b)/d?from=2020-02-01&to=2020-01-01"))
        #expect(backwards.status == 400 && backwards.error!.contains("backwards"))
        let open = try await service.send(writer.read("/b/\(b)/d?from=2020-02-01"))
        #expect(open.status == 400)
    }

    @Test(arguments: ServiceKind.inProcessCases)
    func rangeCutsAtEightMiB(_ kind: ServiceKind) throws {
        let service = try TestService(kind)
        let store = service.store
        let writer = StandInWriter()
        _ = try store.claim(writer.bucket, writer: writer.writerKey.publicKey, invite: nil, now: Date())
        let blob = [UInt8](repeating: 2, count: 1024 * 1024 - 100)
        let ten = days(from: "2024-03-01", count: 10)
        _ = try store.storeDays(writer.bucket, writer: writer.writerKey.publicKey, days: ten.map { Frame.Day(day: $0, sealed: blob) },
                                requestBytes: 0, quota: Quota(), now: Date())
        let cut = try store.range(writer.bucket, after: nil, through: ten.last!, maxDays: 92, maxBytes: ProtocolLimits.maxRangeBytes)
        #expect(cut.count == 8 && cut.more && cut.lastDay == ten[7])
        let unpacked = try Frame.unpack(cut.frame)
        #expect(unpacked.map(\.day) == Array(ten.prefix(8)))
        #expect(unpacked.reduce(0) { $0 + $1.sealed.count } <= ProtocolLimits.maxRangeBytes)

        // A first day larger than the cut still goes out, alone, and says more remain.
        let alone = try store.range(writer.bucket, after: nil, through: ten.last!, maxDays: 92, maxBytes: 1000)
        #expect(alone.count == 1 && alone.more && alone.lastDay == ten[0])
        // The day count cuts too; a range that fits says nothing remains.
        let three = try store.range(writer.bucket, after: ten[1], through: ten.last!, maxDays: 3, maxBytes: ProtocolLimits.maxRangeBytes)
        #expect(three.count == 3 && three.more && three.lastDay == ten[4])
        let tail = try store.range(writer.bucket, after: ten[6], through: ten.last!, maxDays: 92, maxBytes: ProtocolLimits.maxRangeBytes)
        #expect(tail.count == 3 && !tail.more && tail.lastDay == ten[9])
        let none = try store.range(writer.bucket, after: ten[9], through: ten.last!, maxDays: 92, maxBytes: ProtocolLimits.maxRangeBytes)
        #expect(none.count == 0 && !none.more && none.lastDay == nil && none.frame.isEmpty)
    }

    @Test(arguments: ServiceKind.allCases)
    func statsAreOpen(_ kind: ServiceKind) async throws {
        let (service, writer, all) = try await Self.archive(kind, count: 3)
        _ = try await service.send(writer.registerReader())
        let stats = try await service.send(HTTPRequest(method: "GET", target: "/b/\(writer.bucket)/stats"))
        #expect(stats.status == 200)
        #expect(stats.json?["exists"] == .bool(true) && stats.json?["days"]?.integerValue == 3 && stats.json?["complete"] == .bool(true))
        #expect(stats.json?["firstDay"] == .string(all[0].description) && stats.json?["lastDay"] == .string(all[2].description))
        let nobody = try await service.send(HTTPRequest(method: "GET", target: "/b/\(StandInWriter().bucket)/stats"))
        #expect(nobody.json == .object(["exists": .bool(false), "days": .number(0), "bytes": .number(0),
                                        "firstDay": .null, "lastDay": .null, "complete": .bool(true)]))
    }

    @Test(arguments: ServiceKind.allCases)
    func aRegisteredReadKeyClosesReads(_ kind: ServiceKind) async throws {
        let (service, writer, _) = try await Self.archive(kind, count: 3)
        let b = writer.bucket
        let targets = ["/b/\(b)/days", "/b/\(b)/d/2020-01-01", "/b/\(b)/d?from=2020-01-01&to=2020-01-31", "/b/\(b)/edits"]
        for target in targets {
            #expect(try await service.send(HTTPRequest(method: "GET", target: target)).status != 401, "open before a read key")
        }
        #expect(try await service.send(writer.registerReader()).status == 201)
        for target in targets {
            let unsigned = try await service.send(HTTPRequest(method: "GET", target: target))
            #expect(unsigned.status == 401 && unsigned.error == "this archive answers only reads signed with its read key")
            #expect(try await service.send(writer.read(target)).status == 200, "\(target)")
            let foreign = try await service.send(writer.read(target, key: Ed25519PrivateKey()))
            #expect(foreign.status == 403 && foreign.error == "that is not this archive's read key")
        }
        // A signature over one target does not open another.
        var moved = writer.read("/b/\(b)/d/2020-01-01")
        moved.target = "/b/\(b)/d/2020-01-02"
        let tampered = try await service.send(moved)
        #expect(tampered.status == 403 && tampered.error == "signature does not match the request")
        var stale = writer
        stale.clock -= 1000
        let old = try await service.send(stale.read("/b/\(b)/days"))
        #expect(old.status == 400 && old.json?["now"] != nil)
        #expect(try await service.send(HTTPRequest(method: "GET", target: "/b/\(b)/stats")).status == 200, "stats stay open")
    }
}

@Suite struct ISOTimeTests {
    @Test func millisecondInstantsAndHTTPDates() {
        #expect(ISOTime.milliseconds(0) == "1970-01-01T00:00:00.000Z")
        #expect(ISOTime.milliseconds(1_786_093_200_045) == "2026-08-07T09:00:00.045Z")
        #expect(ISOTime.milliseconds(-1) == "1969-12-31T23:59:59.999Z")
        #expect(ISOTime.httpDate(784_111_777_000) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
