import EfferentCompression
import EfferentCore
import EfferentReader
import Foundation

/// The Swift side of scripts/interop: each subcommand does one protocol operation on files so the
/// independent Python reader's bytes can be compared with ours.
///   encode-day EVENTS.ndjson [--tz ZONE]           canonical layout-2 body to stdout
///   seal-day BODY --bucket B --day D --reading-public B64URL   deflate + HPKE seal to stdout
///   open-day SEALED --handoff FILE --day D         open + expand, NDJSON events with "day"
///   pack-frame DAY=FILE…                           a frame of the given sealed days to stdout
///   derive --handoff FILE --target T --ts N        {"bucket","readPublic","signature" (hex, as §7 writes it)}
let arguments = Array(CommandLine.arguments.dropFirst())

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(2)
}

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func file(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return Array(data)
}

func handoff() -> Handoff {
    guard let path = option("--handoff") else { fail("--handoff FILE is needed") }
    do { return try Handoff(parsing: String(decoding: file(path), as: UTF8.self), checkingInstruction: false) } catch { fail("\(error)") }
}

func write(_ bytes: [UInt8]) { FileHandle.standardOutput.write(Data(bytes)) }

/// One expanded event line (§3.2) back into an event.
func event(_ line: Substring) -> DayEvent {
    guard let json = try? JSONParser.parse(String(line)), let metric = json["metric"]?.stringValue,
          let start = json["start"]?.stringValue.flatMap({ ISOInstant.seconds($0) }),
          let end = json["end"]?.stringValue.flatMap({ ISOInstant.seconds($0) }) else { fail("not an event line: \(line.prefix(80))") }
    let bucket = json["bucket"]?.stringValue.flatMap { DayEvent.Bucket(rawValue: $0) }
    do {
        return try DayEvent(kind: bucket == nil ? .record : .total, metric: metric, bucket: bucket, unit: json["unit"]?.stringValue,
                            source: json["source"]?.stringValue, start: start, end: end, value: json["value"]?.numberValue,
                            stage: json["stage"]?.stringValue, activity: json["activity"]?.stringValue, duration: json["duration"]?.numberValue)
    } catch { fail("\(error)") }
}

switch arguments.first {
case "encode-day":
    guard arguments.count > 1 else { fail("encode-day EVENTS.ndjson") }
    let lines = String(decoding: file(arguments[1]), as: UTF8.self).split(separator: "\n").filter { !$0.isEmpty }
    write(DayBody(events: lines.map(event), timeZone: option("--tz")).bytes)
case "seal-day":
    guard arguments.count > 1, let bucket = option("--bucket"), let day = option("--day").flatMap({ CalendarDay($0) }),
          let key = option("--reading-public").flatMap({ Base64URL.decode($0) }), let recipient = try? X25519PublicKey(rawRepresentation: key) else {
        fail("seal-day BODY --bucket B --day D --reading-public B64URL")
    }
    do { write(try SealedEnvelope.seal(try Deflater().compress(file(arguments[1])), to: recipient, aad: .day(bucket: bucket, day: day))) }
    catch { fail("\(error)") }
case "open-day":
    guard arguments.count > 1, let day = option("--day").flatMap({ CalendarDay($0) }) else { fail("open-day SEALED --handoff FILE --day D") }
    let keys = handoff()
    do {
        let plaintext = try SealedEnvelope.open(file(arguments[1]), with: keys.readingKey.privateKey, aad: .day(bucket: keys.bucket.rawValue, day: day))
        var writer = JSONWriter()
        for item in try MirrorSource.events(of: try DayBody.inflate(plaintext).bytes, day: day) { item.writeLine(into: &writer) }
        write(writer.bytes)
    } catch { fail("\(error)") }
case "pack-frame":
    let days = arguments.dropFirst().map { pair -> Frame.Day in
        let parts = pair.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let day = CalendarDay(parts[0]) else { fail("pack-frame DAY=FILE…") }
        return Frame.Day(day: day, sealed: file(String(parts[1])))
    }
    do { write(try Frame.pack(days)) } catch { fail("\(error)") }
case "derive":
    let keys = handoff()
    guard let target = option("--target"), let ts = option("--ts").flatMap({ Int64($0) }) else { fail("derive --handoff FILE --target T --ts N") }
    let signature = keys.readingKey.readKey.signature(for: SignedMessage.read(bucket: keys.bucket, target: target, timestamp: ts))
    let object: JSONValue = .object(["bucket": .string(keys.bucket.rawValue),
                                     "readPublic": .string(Base64URL.encode(keys.readingKey.readKey.publicKey.rawRepresentation)),
                                     "signature": .string(Hex.encode(signature))])
    write(((try? object.canonicalBytes()) ?? []) + [0x0A])
default:
    fail("efferent-interop encode-day | seal-day | open-day | pack-frame | derive (see the source header)")
}
