import EfferentCore
import EfferentHTTP
import EfferentWriter
import Foundation

/// `POST /v1/batches` (Puls Sync Protocol v1 §2–§7): the head judged before a byte of the body
/// is read, the body read line by line as it arrives (inflated under the ceiling), the batch
/// committed in one transaction and flushed to the disk, then answered with the counts.
extension ReceiverHandlers {
    /// §2.5: the compressed body's ceiling (the inflated one is `PulsLimits.inflatedBytes`).
    static let bodyBytes = 256 << 20

    func addBatchRoute(to router: Router) {
        let limits = configuration.limits
        let tooLarge = HTTPError(413, "the batch is over this receiver's limit of \(limits.inflatedBytes >> 20) MiB once inflated")
        let body = BodyLimit(bytes: Self.bodyBytes, refusal: HTTPError(413, "the request body is over this receiver's limit of 256 MiB"),
                             gzip: .init(inflatedBytes: limits.inflatedBytes, refusal: tooLarge))
        router.on("POST", "/v1/batches", body: body, sink: { [self] head, _ in
            let phone = try admit(head)
            // §7.2: an encoding other than gzip or none is malformed input (400), said before the body is read.
            switch head.header("content-encoding")?.lowercased().trimmingCharacters(in: .whitespaces) {
            case nil, "", "identity", "gzip": break
            default: throw ReceiverRefusal.encoding
            }
            return BatchBody(receiver: self, phone: phone, reader: phone.profile.store.batchReader(run: try phone.profile.run(), limits: limits),
                             wireBytes: head.header("content-length").flatMap(Int.init) ?? 0)
        }) { [self] _, _, body in
            try store(body)
        }
    }

    /// The batch read to its end, committed, flushed, answered.
    private func store(_ body: BatchBody) throws -> HTTPResponse {
        let batch: PulsBatch
        do { batch = try body.reader.finish() } catch { throw body.refuse(error) }
        let profile = body.phone.profile
        let counts: ReceiverStore.PhoneBatchCounts
        do {
            counts = try profile.store.commit(batch, token: body.phone.token, run: try profile.run(),
                                              now: configuration.clock().timeIntervalSince1970)
            // Acknowledged means on the disk: the phone moves its cursor past this batch (§6).
            try profile.store.flush()
        } catch {
            configuration.log?(LogLine(.error, ["batch": .text("not stored: \(error)")]).json)
            throw body.refuse(error)
        }
        // The phone's zone pins an archive `init` left unpinned (its days re-cut), or is noted as
        // a warning when it disagrees with the pinned one (decision A.4), as an import's zone is.
        if let zone = batch.header.timeZoneID, !zone.isEmpty, profile.settledZone.withLock({ $0 }) != zone {
            do {
                try profile.context.learnZone(named: zone)
                profile.settledZone.withLock { $0 = zone }
            } catch {
                configuration.log?(LogLine(.warning, ["zone": .text("\(error)")]).json)
            }
        }
        if counts.days > 0 { profile.sealer?.changed() }
        if counts.replayDiffers {
            configuration.log?(LogLine(.warning, ["batch": .text(
                "a batch ID already stored came again with other content: nothing of it was stored (the phone sent two batches under one ID)")]).json)
        }
        let answer = "{\"accepted\":\(counts.accepted),\"deleted\":\(counts.deleted),\"duplicates\":\(counts.duplicates),"
            + "\"routePoints\":\(counts.routePoints),\"seriesPoints\":\(counts.seriesPoints),"
            + "\"aggregateSamples\":\(counts.aggregateSamples),\"activitySummaries\":\(counts.activitySummaries)}"
        body.log(status: 200, batch: batch, counts: counts)
        return Self.json(200, answer)
    }
}

/// One batch's body as it arrives: fed to the batch reader, and every refusal noted for
/// `efferent status` and logged as the batch's line.
final class BatchBody: HTTPBodySink {
    let receiver: ReceiverHandlers
    let phone: ReceiverHandlers.Phone
    let reader: PulsBatchReader
    let wireBytes: Int
    private let started = Date()

    init(receiver: ReceiverHandlers, phone: ReceiverHandlers.Phone, reader: PulsBatchReader, wireBytes: Int) {
        self.receiver = receiver
        self.phone = phone
        self.reader = reader
        self.wireBytes = wireBytes
    }

    func take(_ bytes: [UInt8]) throws {
        do { try reader.feed(bytes) } catch { throw refuse(error) }
    }

    /// Notes a failure for `efferent status` and the batch's log line, and returns what to throw:
    /// a refused batch as its 4xx; anything else as it is, for the router to log and answer by
    /// `ReceiverRefusal.recover` (503 when a retry can pass, a 500 otherwise).
    func refuse(_ error: any Error) -> any Error {
        let refusal = (error as? PulsBatchError).map(ReceiverRefusal.batch) ?? ReceiverRefusal.recover(error) ?? HTTPError.internalFailure
        let sentence = (error as? PulsBatchError)?.description ?? (refusal as? HTTPError)?.message ?? "the receiver failed"
        try? phone.profile.store.recordPhoneError("\(refusal.status): \(sentence)", token: phone.token,
                                                  now: receiver.configuration.clock().timeIntervalSince1970)
        log(status: refusal.status, batch: nil, counts: nil)
        return error is PulsBatchError ? refusal : error
    }

    /// The batch's line: counts, bytes and milliseconds; never a value, a name or a token.
    func log(status: Int, batch: PulsBatch?, counts: ReceiverStore.PhoneBatchCounts?) {
        guard let log = receiver.configuration.log else { return }
        let ms = (Date().timeIntervalSince(started) * 1000 * 100).rounded() / 100
        var members: [(String, LogLine.Field)] = [("status", .count(status)), ("phone", .integer(phone.token))]
        if let batch {
            members += [("lines", .integer(Int64(batch.header.lineCount))), ("samples", .count(batch.samples.count))]
        }
        if let counts {
            members += [("accepted", .count(counts.accepted)), ("duplicates", .count(counts.duplicates)),
                        ("deleted", .count(counts.deleted)), ("routePoints", .count(counts.routePoints)),
                        ("seriesPoints", .count(counts.seriesPoints)), ("aggregateSamples", .count(counts.aggregateSamples)),
                        ("activitySummaries", .count(counts.activitySummaries)), ("records", .count(counts.records)),
                        ("days", .count(counts.days)), ("replay", .integer(counts.replayed ? 1 : 0))]
        }
        members += [("bytes", .count(wireBytes)), ("inflated", .count(reader.bytes)), ("ms", .number(ms))]
        log(LogLine(status >= 500 ? .error : status >= 400 ? .warning : .info, ["batch": .object(members)]).json)
    }
}
