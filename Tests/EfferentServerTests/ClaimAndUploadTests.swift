import EfferentHTTP
import EfferentCore
@testable import EfferentServer
import Foundation
import Testing

/// §6's writer routes: every success and every refusal, in process and over loopback.
@Suite struct ClaimAndUploadTests {
    @Test(arguments: ServiceKind.allCases)
    func conventions(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let health = try await service.send(HTTPRequest(method: "GET", target: "/health"))
        #expect(health.status == 200 && health.text == #"{"ok":true}"#)
        let unknown = try await service.send(HTTPRequest(method: "GET", target: "/nope"))
        #expect(unknown.status == 404 && unknown.error == "unknown path")
        #expect(unknown.header("content-type") == "application/json")
        let bad = try await service.send(HTTPRequest(method: "GET", target: "/b/NOT-A-BUCKET/stats"))
        #expect(bad.status == 400 && bad.error == "malformed bucket id")
        let method = try await service.send(HTTPRequest(method: "DELETE", target: "/health"))
        #expect(method.status == 405 && method.error == "DELETE is not allowed here")
        let device = try await service.send(HTTPRequest(method: "PUT", target: "/b/\(StandInWriter().bucket)/device", body: [1]))
        #expect(device.status == 501)
    }

    @Test(arguments: ServiceKind.allCases)
    func claimIsKeptByTheFirstWriter(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        var writer = StandInWriter(clock: Int64(service.clockSeconds))
        let first = try await service.send(writer.claim())
        #expect(first.status == 201)
        #expect(first.json == .object(["bucket": .string(writer.bucket.rawValue), "created": .bool(true)]))
        let again = try await service.send(writer.claim())
        #expect(again.status == 200 && again.json?["created"] == .bool(false))
        let stranger = try await service.send(writer.claim(key: Ed25519PrivateKey()))
        #expect(stranger.status == 403 && stranger.error == "this bucket already belongs to another writer")

        var withBody = writer.claim()
        withBody.body = [1]
        #expect(try await service.send(withBody).status == 400)
        var unsigned = writer.claim()
        unsigned.headers["x-efferent-signature"] = nil
        let missing = try await service.send(unsigned)
        #expect(missing.status == 400 && missing.error == "missing writer key or signature")
        var forged = writer.claim()
        forged.headers["x-efferent-signature"] = Base64URL.encode([UInt8](repeating: 7, count: 64))
        let badSignature = try await service.send(forged)
        #expect(badSignature.status == 403 && badSignature.error == "signature does not match the request")
        var zero = writer.claim()
        zero.headers["x-efferent-writer"] = Base64URL.encode([UInt8](repeating: 0, count: 32))
        let smallOrder = try await service.send(zero)
        #expect(smallOrder.status == 400 && smallOrder.error == "that writer key is not a key anybody holds")

        writer.clock -= 301
        let stale = try await service.send(writer.claim())
        #expect(stale.status == 400)
        #expect(stale.error == "timestamp is 301s away from this server's clock")
        #expect(stale.json?["now"]?.integerValue == Int64(service.clockSeconds))
    }

    @Test(arguments: ServiceKind.allCases)
    func invitesAdmitOneWriterEach(_ kind: ServiceKind) async throws {
        let service = try TestService(kind, admission: .invite)
        let now = Date(timeIntervalSince1970: service.clockSeconds)
        let code = Invites.newCode(), expired = Invites.newCode()
        try service.store.addInvite(hash: Invites.hash(code), expires: now.addingTimeInterval(3600), now: now)
        try service.store.addInvite(hash: Invites.hash(expired), expires: now.addingTimeInterval(-1), now: now)
        let a = StandInWriter(clock: Int64(service.clockSeconds)), b = StandInWriter(clock: Int64(service.clockSeconds))

        let none = try await service.send(a.claim())
        #expect(none.status == 403 && none.error!.contains("invite code"))
        let unknown = try await service.send(a.claim(invite: Invites.newCode()))
        #expect(unknown.status == 403 && unknown.error!.contains("not one this service issued"))
        let late = try await service.send(a.claim(invite: expired))
        #expect(late.status == 403 && late.error!.contains("expired"))
        #expect(try await service.send(a.claim(invite: code.uppercased())).status == 201, "codes are read without regard to case")
        #expect(try await service.send(a.claim()).status == 200, "the owner needs no code again")
        let reused = try await service.send(b.claim(invite: code))
        #expect(reused.status == 403 && reused.error!.contains("used already"))
        #expect(try service.store.bucket(b.bucket) == nil)
    }

    @Test(arguments: ServiceKind.allCases)
    func uploadStoresExactlyWhatItNames(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        let week = days(from: "2026-08-01", count: 7)

        let unclaimed = try await service.send(try writer.upload(week))
        #expect(unclaimed.status == 403 && unclaimed.error == "this bucket has not been claimed")
        #expect(try await service.send(writer.claim()).status == 201)

        let request = try writer.upload(week)
        let stored = try await service.send(request)
        #expect(stored.status == 200)
        #expect(stored.json == .object(["stored": .array(week.map { .string($0.description) }), "bytes": .number(Double(request.body.count))]))
        let stats = try service.store.stats(writer.bucket)
        #expect(stats.days == 7 && stats.firstDay == week.first && stats.lastDay == week.last)
        #expect(try service.store.bucket(writer.bucket)?.taken == Int64(request.body.count))

        // The signature covers the days in frame order: a frame signed for other days is refused.
        let frame = try writer.frame(week)
        let wrongDays = try await service.send(writer.upload(frame, days: Array(week.reversed())))
        #expect(wrongDays.status == 403 && wrongDays.error == "signature does not match the request")
        let stranger = try await service.send(writer.upload(frame, days: week, key: Ed25519PrivateKey()))
        #expect(stranger.status == 403 && stranger.error == "this bucket already belongs to another writer")
    }

    @Test(arguments: ServiceKind.allCases)
    func uploadRefusals(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        _ = try await service.send(writer.claim())

        let empty = try await service.send(writer.upload([], days: []))
        #expect(empty.status == 400)
        let leftover = try writer.frame([day("2026-08-01")]) + [1, 2, 3]
        let malformed = try await service.send(writer.upload(leftover, days: [day("2026-08-01")]))
        #expect(malformed.status == 400 && malformed.error == "malformed batch: 3 bytes left over where a day was expected")
        let month = days(from: "2026-01-01", count: 32)
        let tooMany = try await service.send(try writer.upload(month))
        #expect(tooMany.status == 413 && tooMany.error!.contains("31 days"))
        let big = try Frame.pack([Frame.Day(day: day("2026-08-01"), sealed: [UInt8](repeating: 2, count: ProtocolLimits.maxDayBytes + 1))])
        let bigDay = try await service.send(writer.upload(big, days: [day("2026-08-01")]))
        #expect(bigDay.status == 413 && bigDay.error!.contains("1 MiB"))
        let tomorrow = CalendarDay(unixSeconds: Int64(service.clockSeconds) + 86_400)
        #expect(try await service.send(try writer.upload([tomorrow])).status == 200, "tomorrow is still taken")
        let future = try await service.send(try writer.upload([tomorrow.next]))
        #expect(future.status == 400 && future.error == "\(tomorrow.next) is outside 1900-01-01 … \(tomorrow)")
        let ancient = try await service.send(try writer.upload([day("1899-12-31")]))
        #expect(ancient.status == 400)
        #expect(try service.store.stats(writer.bucket).days == 1, "no refused request stored anything")
    }

    @Test(arguments: ServiceKind.allCases)
    func tallyCeilingsAnswer507AndNeverDecrease(_ kind: ServiceKind) async throws {
        let writer = StandInWriter()
        let one = try writer.upload([day("2026-08-01")]).body.count
        let service = try TestService(kind, quota: Quota(bucketBytes: Int64(one * 2 + one / 2), serviceBytes: Int64(one * 3 + one / 2)))
        let a = StandInWriter(clock: Int64(service.clockSeconds)), b = StandInWriter(clock: Int64(service.clockSeconds))
        _ = try await service.send(a.claim())
        _ = try await service.send(b.claim())
        #expect(try await service.send(try a.upload([day("2026-08-01")])).status == 200)
        #expect(try await service.send(try a.upload([day("2026-08-01")])).status == 200, "a rewrite counts again")
        let full = try await service.send(try a.upload([day("2026-08-02")]))
        #expect(full.status == 507 && full.error!.contains("this bucket"))
        #expect(try await service.send(try b.upload([day("2026-08-01")])).status == 200)
        let serviceFull = try await service.send(try b.upload([day("2026-08-02")]))
        #expect(serviceFull.status == 507 && serviceFull.error!.contains("this service"))
        #expect(try service.store.serviceStats().taken == Int64(one * 3))
    }

    @Test(arguments: ServiceKind.allCases)
    func registrations(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        let early = try await service.send(writer.registerReader())
        #expect(early.status == 403 && early.error == "claim the bucket first")
        _ = try await service.send(writer.claim())
        #expect(try await service.send(writer.registerReader()).status == 201)
        let same = try await service.send(writer.registerReader())
        #expect(same.status == 200 && same.json?["registered"] == .bool(false))
        #expect(try await service.send(writer.registerEditor()).status == 201)
        #expect(try await service.send(writer.registerEditor()).status == 200)
        var short = writer.registerEditor()
        short.body = [1, 2, 3]
        #expect(try await service.send(short).status == 400)
        let other = StandInWriter(clock: Int64(service.clockSeconds))
        let notOwner = try await service.send(other.signed("PUT", "/b/\(writer.bucket)/reader", body: other.reading.readKey.publicKey.rawRepresentation,
                                                           message: { SignedMessage.reader(bucket: writer.bucket, timestamp: $0, body: other.reading.readKey.publicKey.rawRepresentation) }))
        #expect(notOwner.status == 403 && notOwner.error == "only the owner may register a read key")
        let editorKey = other.editor.publicKey.rawRepresentation
        let notOwnerEditor = try await service.send(other.signed("PUT", "/b/\(writer.bucket)/editor", body: editorKey,
                                                                 message: { SignedMessage.editor(bucket: writer.bucket, timestamp: $0, body: editorKey) }))
        #expect(notOwnerEditor.status == 403 && notOwnerEditor.error == "only the owner may register an editor key")
        let record = try #require(try service.store.bucket(writer.bucket))
        #expect(record.reader == writer.reading.readKey.publicKey && record.editor == writer.editor.publicKey)
    }
}
