import EfferentClient
import EfferentCrypto
import EfferentRecovery
import EfferentSystem
import EfferentWriter
import Foundation

extension Keys {
    /// `keys backup`: writes the kit's file(s) and printable page(s) beside them.
    func backup(out: String?, split: (threshold: Int, count: Int)?) async throws -> Int32 {
        let context = try WriterContext()
        var made = false
        var passphrase: String
        if let given = try givenPassphrase(prompt: "Passphrase for the kit (press Enter to have one made for you): "), !given.isEmpty {
            if passphraseFile == nil {
                guard let again = SecretPrompt.ask("The same passphrase again: "), Passphrase.normalised(again) == given else {
                    throw KeysCommandError.passphrasesDiffer
                }
            }
            guard given.count >= 12 else { throw KeysCommandError.shortPassphrase(given.count) }
            passphrase = given
        } else {
            passphrase = Passphrase.generate()
            made = true
        }
        let bucket = context.settings.bucket.rawValue
        let day = KitReminderDay.today()
        let base = out ?? "efferent-kit-\(bucket.prefix(8))-\(day).txt"
        let stem = base.hasSuffix(".txt") ? String(base.dropLast(4)) : base
        let names: [(text: String, page: String)] = split.map { split in
            (1...split.count).map { ("\(stem)-sheet-\($0)-of-\(split.count).txt", "\(stem)-sheet-\($0)-of-\(split.count).html") }
        } ?? [(base, stem + ".html")]
        for name in names.flatMap({ [$0.text, $0.page] }) where FileManager.default.fileExists(atPath: name) {
            throw KeysCommandError.exists(name)
        }
        note("sealing the kit (Argon2id over 256 MiB: a second or two)…")
        let written = try await KitBackup.write(context, passphrase: SecretBytes(Array(passphrase.utf8)), split: split,
                                                printPassphrase: split != nil && made ? passphrase : nil)
        for (sheet, name) in zip(written.sheets, names) {
            try DurableFile.write(Array(sheet.text.utf8), to: name.text)
            try DurableFile.write(Array(try KitPage.html(sheet).utf8), to: name.page)
        }
        if let split {
            print("wrote a kit of archive \(bucket) in \(split.count) sheets, any \(split.threshold) of which recover it (one alone reveals nothing):")
            for name in names { print("  \(name.text), and \(name.page) to print") }
        } else {
            print("wrote the recovery kit of archive \(bucket): \(names[0].text), and \(names[0].page) to print (one A4 or Letter page)")
        }
        if made, split != nil {
            print("its passphrase, made for you (88 bits), is printed on every sheet, so that the people holding any \(split!.threshold) recover without you")
        } else if made {
            print("its passphrase, made for you (\(Passphrase.bits) bits); write it down and keep it apart from the sheet, it is not shown again:")
            print("  \(passphrase)")
        } else {
            print("its passphrase is the one you gave; the kit opens with nothing else")
        }
        print("the service keeps a sealed copy, for when only the 24 words are left; it cannot open it")
        if written.dropped > 0 {
            note("the service keeps \(16) kits per archive: the words of the oldest no longer restore (its file and QR code still do)")
        }
        print("next: efferent keys verify \(names[0].text)" + (split.map { s in names.dropFirst().prefix(s.threshold - 1).map { " " + $0.text }.joined() } ?? "")
              + "   (proves it opens this archive; until then status reminds you)")
        return 0
    }
}

/// Today's date as the kit's file names carry it.
enum KitReminderDay {
    static func today() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date())
    }
}
