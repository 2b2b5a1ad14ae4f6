import EfferentCompression
import EfferentHTTP
import EfferentClient
import EfferentCore
@testable import EfferentReader
@testable import EfferentServer
import EfferentServiceTestSupport
import EfferentSystem
import Foundation

/// A real archive service on loopback holding days written by a deliberately independent test
/// writer — bodies assembled by hand from the protocol text — and a reader profile for it.
final class ReaderHarness: Sendable {
    let directory = NSTemporaryDirectory() + "efferent-reader-" + UUID().uuidString
    let service: RunningService
    let reading = ReadingKey()
    let writer = Ed25519PrivateKey()
    let client: ArchiveClient
    let profile: Profile

    init() async throws {
        service = try RunningService(directory: directory + "/service")
        client = try await service.claimArchive(reading: reading, writer: writer)
        profile = Profile(directory: directory + "/reader")
    }

    var endpoint: String { service.endpoint }
    var serviceStore: SQLiteArchiveStore { service.sqlite }

    deinit {
        service.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A layout-2 body written out by hand: hourly steps and a heart-rate series, in the zone given.
    static func handBody(_ day: CalendarDay, steps: Int, zone: String? = "Europe/Berlin") -> String {
        let t0 = day.startUnixSeconds + 7 * 3600
        let tz = zone.map { ",\"tz\":\"\($0)\"" } ?? ""
        return "{\"series\":[{\"bucket\":\"day\",\"d\":[86400],\"k\":\"agg\",\"metric\":\"steps\",\"t\":[0],\"t0\":\(day.startUnixSeconds),"
            + "\"unit\":\"count\",\"value\":[\(steps)]},{\"d\":[0,0,0],\"k\":\"hk\",\"metric\":\"heartRate\",\"source\":\"Apple Watch\","
            + "\"t\":[0,300,300],\"t0\":\(t0),\"unit\":\"count/min\",\"value\":[61,64,70]}]\(tz),\"v\":2}"
    }

    /// Seals bodies (raw deflate, HPKE v2, the day's AAD) and uploads them a month at a time.
    func upload(_ bodies: [(CalendarDay, String)]) async throws {
        let deflater = try Deflater()
        let sealed = try bodies.map { day, text in
            Frame.Day(day: day, sealed: try SealedEnvelope.seal(try deflater.compress(Array(text.utf8)), to: reading.publicKey,
                                                                aad: .day(bucket: reading.bucket.rawValue, day: day)))
        }
        for start in stride(from: 0, to: sealed.count, by: 31) {
            _ = try await client.upload(Array(sealed[start..<min(start + 31, sealed.count)]), writer: writer)
        }
    }

    func mirror() throws -> Mirror { try Mirror(profile: profile, endpoint: endpoint) }

    func syncer(_ mirror: Mirror, transport: (any HTTPTransport)? = nil) -> Syncer {
        Syncer(client: ArchiveClient(endpoint: endpoint, bucket: reading.bucket, retry: .none, transport: transport),
               reading: reading, mirror: mirror)
    }
}
