import EfferentCore
@testable import EfferentServer
import Foundation
import Testing

/// Many writers at once over loopback: nothing lost, nothing crossed between buckets, tallies exact.
@Suite struct ConcurrencyTests {
    @Test(arguments: ServiceKind.loopbackCases)
    func fiftyConcurrentUploadsToFiftyBuckets(_ kind: ServiceKind) async throws {
        let service = try TestService(kind)
        let writers = (0..<50).map { _ in StandInWriter(clock: Int64(service.clockSeconds)) }
        for writer in writers { #expect(try await service.send(writer.claim()).status == 201) }
        let month = days(from: "2026-03-01", count: 31)
        let requests = try writers.map { try $0.upload(month) }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for request in requests { group.addTask { try await service.send(request).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
        for (writer, request) in zip(writers, requests) {
            let stats = try service.store.stats(writer.bucket)
            #expect(stats.days == 31)
            #expect(try service.store.bucket(writer.bucket)?.taken == Int64(request.body.count))
            let sealed = try #require(try service.store.day(writer.bucket, month[10])?.sealed)
            #expect(throws: Never.self) {
                try SealedEnvelope.open(sealed, with: writer.reading.privateKey, aad: .day(bucket: writer.bucket.rawValue, day: month[10]))
            }
        }
        let total = requests.reduce(0) { $0 + $1.body.count }
        #expect(try service.store.serviceStats().taken == Int64(total))
    }
}
