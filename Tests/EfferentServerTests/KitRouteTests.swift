import EfferentCore
import EfferentCrypto
import EfferentHTTP
@testable import EfferentServer
import Foundation
import Testing

/// The recovery-kit extension's routes (`PUT`/`GET /kit/<locator>`), on each store, in process and
/// over loopback: only the owner keeps a record, anyone who names its locator fetches it, bytes
/// count against the tallies, a bucket keeps at most 16, and the operator's delete takes them.
@Suite struct KitRouteTests {
    static func put(_ writer: StandInWriter, _ locator: String, _ body: [UInt8], bucket: BucketID? = nil,
                    key: Ed25519PrivateKey? = nil) throws -> HTTPRequest {
        let bucket = bucket ?? writer.bucket
        let kit = try KitLocator(locator)
        return writer.signed("PUT", "/kit/\(locator)", body: body, key: key,
                             message: { SignedMessage.kit(bucket: bucket, locator: kit, timestamp: $0, body: body) },
                             extra: ["x-efferent-bucket": bucket.rawValue])
    }

    static func locator(_ seed: UInt8) -> String { KitLocator(derived: Array(repeating: seed, count: 16)).rawValue }

    @Test(arguments: ServiceKind.allCases)
    func theOwnerKeepsAndAnyoneFetches(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writer = StandInWriter(clock: Int64(service.clockSeconds))
        let record = Sodium.randomBytes(300)
        let unclaimed = try await service.send(try Self.put(writer, Self.locator(1), record))
        #expect(unclaimed.status == 403 && unclaimed.error == "this bucket has not been claimed")
        _ = try await service.send(writer.claim())
        let before = try #require(try service.store.bucket(writer.bucket)).taken
        let put = try await service.send(try Self.put(writer, Self.locator(1), record))
        #expect(put.status == 201, "\(put.error ?? "")")
        #expect(put.json?["replaced"] == .bool(false) && put.json?["dropped"]?.integerValue == 0)
        #expect(try #require(try service.store.bucket(writer.bucket)).taken == before + 300, "a kit's bytes count against the bucket's tally")
        let fetched = try await service.send(HTTPRequest(method: "GET", target: "/kit/\(Self.locator(1))"))
        #expect(fetched.status == 200 && fetched.body == record && fetched.header("x-efferent-bucket") == writer.bucket.rawValue)
        let missing = try await service.send(HTTPRequest(method: "GET", target: "/kit/\(Self.locator(2))"))
        #expect(missing.status == 404 && missing.error == "this service keeps no recovery record under that locator")
        let malformed = try await service.send(HTTPRequest(method: "GET", target: "/kit/NOT-A-LOCATOR"))
        #expect(malformed.status == 400 && malformed.error == "malformed kit locator")
        // Replacing one's own record answers 200; another writer's key, a forged signature, another archive's locator are refused.
        let replaced = try await service.send(try Self.put(writer, Self.locator(1), Sodium.randomBytes(200)))
        #expect(replaced.status == 200 && replaced.json?["replaced"] == .bool(true))
        let stranger = StandInWriter(clock: writer.clock)
        let foreign = try await service.send(try Self.put(writer, Self.locator(3), record, key: stranger.writerKey))
        #expect(foreign.status == 403 && foreign.error == "only this archive's owner may keep a recovery kit for it")
        var forged = try Self.put(writer, Self.locator(3), record)
        forged = HTTPRequest(method: forged.method, target: forged.target, headers: forged.headers, body: Sodium.randomBytes(300))
        #expect(try await service.send(forged).status == 403)
        _ = try await service.send(stranger.claim())
        let taken = try await service.send(try Self.put(stranger, Self.locator(1), record))
        #expect(taken.status == 409 && taken.error == "that kit locator is another archive's")
        #expect(try await service.send(HTTPRequest(method: "GET", target: "/kit/\(Self.locator(1))")).header("x-efferent-bucket") == writer.bucket.rawValue)
        let noBucket = writer.signed("PUT", "/kit/\(Self.locator(4))", body: record, message: { _ in [] })
        #expect(try await service.send(noBucket).status == 400)
        #expect(try await service.send(try Self.put(writer, Self.locator(4), [1, 2, 3])).status == 400)
        #expect(try await service.send(try Self.put(writer, Self.locator(4), Sodium.randomBytes(5000))).status == 413)
        // A wire signature is no kit signature: the tag differs.
        let wire = writer.signed("PUT", "/kit/\(Self.locator(5))", body: record,
                                 message: { SignedMessage.upload(bucket: writer.bucket, days: [], timestamp: $0, body: record) },
                                 extra: ["x-efferent-bucket": writer.bucket.rawValue])
        #expect(try await service.send(wire).status == 403)
    }

    @Test(arguments: ServiceKind.inProcessCases)
    func aBucketKeepsItsNewestSixteen(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        var writer = StandInWriter(clock: Int64(service.clockSeconds))
        _ = try await service.send(writer.claim())
        for index in 0..<18 {
            service.advanceClock(by: 1)
            writer.clock = Int64(service.clockSeconds)
            let answer = try await service.send(try Self.put(writer, Self.locator(UInt8(10 + index)), Sodium.randomBytes(100)))
            #expect(answer.status == 201)
            #expect(answer.json?["dropped"]?.integerValue == (index >= 16 ? 1 : 0), "put \(index)")
        }
        #expect(try service.store.kit(try KitLocator(Self.locator(10))) == nil && service.store.kit(try KitLocator(Self.locator(11))) == nil)
        #expect(try service.store.kit(try KitLocator(Self.locator(12))) != nil && service.store.kit(try KitLocator(Self.locator(27))) != nil)
        #expect(try service.store.removeBucket(writer.bucket))
        #expect(try service.store.kit(try KitLocator(Self.locator(27))) == nil, "the operator's delete takes the kits with the archive")
    }

    @Test(arguments: ServiceKind.inProcessCases)
    func kitRequestsAreRateLimited(_ kind: ServiceKind) async throws {
        let service = try TestService(kind, rateLimits: RateLimits(kits: 3))
        for index in 0..<3 {
            #expect(try await service.send(HTTPRequest(method: "GET", target: "/kit/\(Self.locator(UInt8(index)))")).status == 404)
        }
        let limited = try await service.send(HTTPRequest(method: "GET", target: "/kit/\(Self.locator(9))"))
        #expect(limited.status == 429 && limited.error == "too many recovery-kit requests from here just now")
    }
}
