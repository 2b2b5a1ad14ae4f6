import EfferentCore
@testable import EfferentServer
import Foundation
import Testing

/// The edit queue (§6, §8): post, list, fetch, outcome, `o/<name>`.
@Suite struct EditQueueTests {
    static let meal: [EditItem] = [.put(EditItem.Put(id: "agent:meal:lunch", metric: "dietaryEnergy", start: 1_700_000_000,
                                                           end: 1_700_000_600, value: 640, unit: "kcal", stage: nil))]

    @Test(arguments: ServiceKind.allCases)
    func anEditTravelsThroughTheQueue(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        let b = writer.bucket
        _ = try await service.send(writer.claim())
        let early = try await service.send(try writer.postEdit(Self.meal))
        #expect(early.status == 403 && early.error == "no editor is registered for this bucket")
        _ = try await service.send(writer.registerEditor())
        let strange = try await service.send(try writer.postEdit(Self.meal, key: Ed25519PrivateKey()))
        #expect(strange.status == 403 && strange.error == "that is not this bucket's editor")

        let posted = try await service.send(try writer.postEdit(Self.meal))
        #expect(posted.status == 201)
        let name = try EditName(try #require(posted.json?["name"]?.stringValue))
        #expect(posted.json?["at"]?.stringValue?.hasSuffix("Z") == true)

        let pending = try await service.send(writer.read("/b/\(b)/edits"))
        #expect(pending.json?["edits"]?.arrayValue?.first?["status"] == .string("pending"))
        #expect(pending.json?["next"] == .null)

        let fetched = try await service.send(writer.fetchEdit(name))
        #expect(fetched.status == 200)
        let signature = try #require(fetched.header("x-efferent-signature").flatMap { Base64URL.decode($0) })
        let timestamp = try #require(fetched.header("x-efferent-timestamp").flatMap { Int64($0) })
        #expect(fetched.header("x-efferent-editor") == Base64URL.encode(writer.editor.publicKey.rawRepresentation))
        #expect(writer.editor.publicKey.isValidSignature(signature, for: SignedMessage.edit(bucket: b, timestamp: timestamp, sealed: fetched.body)))
        let plaintext = try SealedEnvelope.open(fetched.body, with: writer.reading.privateKey, aad: .edit(bucket: b.rawValue))
        #expect(try EditPack.unpack(plaintext) == Self.meal)
        let stranger = try await service.send(writer.signed("GET", "/b/\(b)/e/\(name)", key: Ed25519PrivateKey(),
                                                            message: { SignedMessage.fetch(bucket: b, name: name, timestamp: $0) }))
        #expect(stranger.status == 403)

        let outcome = EditOutcome(applied: 0, failed: [.init(item: 0, code: .badUnit)])
        let answered = try await service.send(writer.answer(name, outcome))
        #expect(answered.status == 200)
        #expect(answered.json == .object(["name": .string(name.rawValue), "applied": .number(0), "failed": .number(1)]))
        let gone = try await service.send(writer.fetchEdit(name))
        #expect(gone.status == 410 && gone.error == "this edit has been applied")
        #expect(try await service.send(writer.answer(name, outcome)).status == 200, "a second outcome is a rewrite")

        let all = try await service.send(writer.read("/b/\(b)/edits?status=all"))
        let entry = try #require(all.json?["edits"]?.arrayValue?.first)
        #expect(entry["status"] == .string("failed") && entry["failed"]?.integerValue == 1 && entry["applied"]?.integerValue == 0)
        #expect(try await service.send(writer.read("/b/\(b)/edits")).json?["edits"] == .array([]))
        let record = try await service.send(writer.read("/b/\(b)/o/\(name)"))
        #expect(record.status == 200)
        #expect(try EditOutcome(decoding: record.body, allowingServiceMembers: true) == outcome)

        let unknown = EditName(milliseconds: 1_000)
        #expect(try await service.send(writer.fetchEdit(unknown)).status == 404)
        #expect(try await service.send(writer.answer(unknown, outcome)).status == 404)
        #expect(try await service.send(writer.read("/b/\(b)/o/\(unknown)")).status == 404)
        var malformed = writer.answer(name, outcome)
        malformed.body = Array(#"{"applied":1,"failed":[],"extra":true}"#.utf8)
        malformed = writer.signed("PUT", "/b/\(b)/e/\(name)/outcome", body: malformed.body,
                                  message: { [body = malformed.body] in SignedMessage.outcome(bucket: b, name: name, timestamp: $0, body: body) })
        let refused = try await service.send(malformed)
        #expect(refused.status == 400 && refused.error!.hasPrefix("malformed outcome: "))
        for bad in ["status=done", "limit=0", "after=nope"] {
            #expect(try await service.send(writer.read("/b/\(b)/edits?\(bad)")).status == 400)
        }
    }

    @Test(arguments: ServiceKind.inProcessCases)
    func namesOrderByArrivalAndTheQueueHoldsFiveHundred(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        _ = try await service.send(writer.claim())
        _ = try await service.send(writer.registerEditor())
        let request = try writer.postEdit(Self.meal)
        var names = [String]()
        for _ in 0..<ProtocolLimits.maxPendingEdits {
            let posted = try await service.send(request)
            #expect(posted.status == 201)
            names.append(posted.json?["name"]?.stringValue ?? "")
        }
        #expect(names == names.sorted() && Set(names).count == names.count, "unique names in arrival order, even within one millisecond")
        let full = try await service.send(request)
        #expect(full.status == 429 && full.error == "500 edits are waiting for this phone, and 500 is all the queue holds")
        var pages = 0
        var after: String?
        var listed = 0
        repeat {
            let page = try await service.send(writer.read("/b/\(writer.bucket)/edits" + (after.map { "?after=\($0)" } ?? "")))
            listed += page.json?["edits"]?.arrayValue?.count ?? 0
            after = page.json?["next"]?.stringValue
            pages += 1
        } while after != nil
        #expect(listed == 500 && pages == 3)
    }

    @Test(arguments: ServiceKind.allCases)
    func editRefusals(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        _ = try await service.send(writer.claim())
        _ = try await service.send(writer.registerEditor())
        let version1 = [UInt8(1)] + [UInt8](repeating: 0, count: 80)
        let notV2 = try await service.send(writer.signed("POST", "/b/\(writer.bucket)/edits", body: version1, role: .editor,
                                                         key: writer.editor.privateKey,
                                                         message: { SignedMessage.edit(bucket: writer.bucket, timestamp: $0, sealed: version1) }))
        #expect(notV2.status == 400 && notV2.error == "an edit is sealed in envelope version 2")
        let huge = [UInt8(2)] + [UInt8](repeating: 0, count: ProtocolLimits.maxEditBytes)
        let tooBig = try await service.send(writer.signed("POST", "/b/\(writer.bucket)/edits", body: huge, role: .editor,
                                                          key: writer.editor.privateKey,
                                                          message: { SignedMessage.edit(bucket: writer.bucket, timestamp: $0, sealed: huge) }))
        #expect(tooBig.status == 413)
    }
}
