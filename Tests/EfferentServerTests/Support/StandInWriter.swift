import EfferentCompression
import EfferentHTTP
import EfferentCore
import Foundation

/// A writer written from the protocol text for tests: it holds the three keys and builds signed
/// requests as `HTTPRequest` values, which a `Transport` sends in process or over loopback.
struct StandInWriter {
    let reading: ReadingKey
    let writerKey: Ed25519PrivateKey
    let editor: EditorKey
    var clock: Int64

    init(clock: Int64 = Int64(Date().timeIntervalSince1970)) {
        reading = ReadingKey()
        writerKey = Ed25519PrivateKey()
        editor = EditorKey()
        self.clock = clock
    }

    var bucket: BucketID { reading.bucket }

    func signed(_ method: String, _ target: String, body: [UInt8] = [], role: SignedHeaders.Role = .writer,
                key: Ed25519PrivateKey? = nil, message: (Int64) -> [UInt8], extra: [String: String] = [:]) -> HTTPRequest {
        let headers = SignedHeaders(signing: message(clock), with: key ?? writerKey, role: role, timestamp: clock)
        var fields = extra
        for field in headers.fields { fields[field.name] = field.value }
        return HTTPRequest(method: method, target: target, headers: fields, body: body)
    }

    func claim(invite: String? = nil, key: Ed25519PrivateKey? = nil) -> HTTPRequest {
        signed("PUT", "/b/\(bucket)", key: key, message: { SignedMessage.claim(bucket: bucket, timestamp: $0) },
               extra: invite.map { ["x-efferent-invite": $0] } ?? [:])
    }

    /// A sealed day whose body is a real layout-2 body holding `steps` as one daily total.
    func sealedDay(_ day: CalendarDay, steps: Double = 842) throws -> [UInt8] {
        let event = try DayEvent(kind: .total, metric: "steps", bucket: .day, unit: "count", source: nil,
                                 start: day.startUnixSeconds, end: day.startUnixSeconds + 86_400, value: steps,
                                 stage: nil, activity: nil, duration: nil)
        let body = DayBody(events: [event], timeZone: "UTC")
        return try SealedEnvelope.seal(try body.deflated(using: Deflater()), to: reading.publicKey, aad: .day(bucket: bucket.rawValue, day: day))
    }

    func frame(_ days: [CalendarDay]) throws -> [UInt8] {
        try Frame.pack(days.map { Frame.Day(day: $0, sealed: try sealedDay($0)) })
    }

    func upload(_ body: [UInt8], days: [CalendarDay], key: Ed25519PrivateKey? = nil) -> HTTPRequest {
        signed("PUT", "/b/\(bucket)/days", body: body, key: key,
               message: { SignedMessage.upload(bucket: bucket, days: days, timestamp: $0, body: body) })
    }

    func upload(_ days: [CalendarDay]) throws -> HTTPRequest { upload(try frame(days), days: days) }

    func registerReader() -> HTTPRequest {
        let body = reading.readKey.publicKey.rawRepresentation
        return signed("PUT", "/b/\(bucket)/reader", body: body, message: { SignedMessage.reader(bucket: bucket, timestamp: $0, body: body) })
    }

    func registerEditor() -> HTTPRequest {
        let body = editor.publicKey.rawRepresentation
        return signed("PUT", "/b/\(bucket)/editor", body: body, message: { SignedMessage.editor(bucket: bucket, timestamp: $0, body: body) })
    }

    /// A read signed with the derived read key over the target exactly as sent (§7).
    func read(_ target: String, key: Ed25519PrivateKey? = nil) -> HTTPRequest {
        signed("GET", target, role: .reader, key: key ?? reading.readKey,
               message: { SignedMessage.read(bucket: bucket, target: target, timestamp: $0) })
    }

    func postEdit(_ items: [EditItem], key: Ed25519PrivateKey? = nil) throws -> HTTPRequest {
        let packed = try EditPack.pack(items, now: clock)
        let sealed = try SealedEnvelope.seal(packed, to: reading.publicKey, aad: .edit(bucket: bucket.rawValue))
        return signed("POST", "/b/\(bucket)/edits", body: sealed, role: .editor, key: key ?? editor.privateKey,
                      message: { SignedMessage.edit(bucket: bucket, timestamp: $0, sealed: sealed) })
    }

    func fetchEdit(_ name: EditName) -> HTTPRequest {
        signed("GET", "/b/\(bucket)/e/\(name)", message: { SignedMessage.fetch(bucket: bucket, name: name, timestamp: $0) })
    }

    func answer(_ name: EditName, _ outcome: EditOutcome) -> HTTPRequest {
        let body = outcome.encoded
        return signed("PUT", "/b/\(bucket)/e/\(name)/outcome", body: body,
                      message: { SignedMessage.outcome(bucket: bucket, name: name, timestamp: $0, body: body) })
    }
}

extension HTTPResponse {
    var json: JSONValue? { try? JSONParser.parse(body) }
    var error: String? { json?["error"]?.stringValue }
    var text: String { String(decoding: body, as: UTF8.self) }
}

func day(_ text: String) -> CalendarDay { CalendarDay(text)! }

/// Consecutive days from `start`.
func days(from start: String, count: Int) -> [CalendarDay] {
    (0..<count).map { day(start).adding(days: $0) }
}
