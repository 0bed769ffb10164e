import ShadesAnalysis
import ShadesDSP
/// `index.html` of a catalogue: every category with its sounds, each with a player, its loudness,
/// length and spectrum. One self-contained file (inline CSS, inline SVG, no scripts), English titles
/// with German underneath.
package enum IndexPage {
    package static let fileName = "index.html"

    /// The page for `manifest`; `spectra` maps sound ids to inline SVG fragments.
    package static func html(manifest: Manifest, spectra: [String: String]) -> String {
        let sounds = Dictionary(manifest.sounds.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Shades sound catalogue</title>
            <style>
            body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 0; background: #f4f5f7; color: #222; }
            header { background: #1f3b5a; color: #fff; padding: 18px 28px; }
            header h1 { margin: 0 0 4px; font-size: 24px; }
            header p { margin: 0; font-size: 13px; opacity: 0.85; }
            main { padding: 8px 28px 40px; max-width: 1160px; }
            section { margin-top: 26px; }
            h2 { margin: 0; font-size: 20px; }
            .de { color: #666; font-size: 0.85em; margin: 2px 0 0; font-weight: normal; }
            .sounds { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 16px; margin-top: 12px; }
            .sound { background: #fff; border: 1px solid #dde1e6; border-radius: 8px; padding: 12px 14px; }
            .sound h3 { margin: 0; font-size: 16px; }
            .sound audio { width: 100%; margin: 10px 0 6px; }
            .facts { font-size: 13px; color: #444; margin: 0 0 6px; display: flex; flex-wrap: wrap; gap: 2px 12px; }
            .facts span { white-space: nowrap; }
            .file { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; color: #666; }
            .spectrum svg { display: block; width: 100%; height: auto; }
            footer { font-size: 12px; color: #666; padding: 0 28px 24px; }
            </style>
            </head>
            <body>
            <header>
            <h1>Shades sound catalogue</h1>
            <p>\(counted(manifest.sounds.count, "sound")) in \(counted(manifest.categories.count, "category", "categories")) · built by Shades \(xmlEscaped(manifest.libraryVersion)) · loudness per EBU R 128 (libebur128), true peak ≤ −1 dBTP</p>
            </header>
            <main>

            """
        for category in manifest.categories {
            page += "<section id=\"\(xmlEscaped(category.id))\">\n"
            page += "<h2>\(xmlEscaped(title(category.titles, "en") ?? category.id))</h2>\n"
            if let de = title(category.titles, "de") { page += "<p class=\"de\" lang=\"de\">\(xmlEscaped(de))</p>\n" }
            page += "<div class=\"sounds\">\n"
            for id in category.soundIDs {
                guard let sound = sounds[id] else { continue }
                page += card(sound, spectrum: spectra[id] ?? "")
            }
            page += "</div>\n</section>\n"
        }
        page += "</main>\n<footer>"
        if !manifest.parameters.isEmpty {
            page += "Build parameters: " + manifest.parameters.sorted { $0.key < $1.key }
                .map { "\(xmlEscaped($0.key)) = \(xmlEscaped($0.value))" }.joined(separator: " · ")
        }
        page += "</footer>\n</body>\n</html>\n"
        return page
    }

    private static func card(_ sound: Manifest.Sound, spectrum: String) -> String {
        var html = "<article class=\"sound\" id=\"sound-\(xmlEscaped(sound.id))\">\n"
        html += "<h3>\(xmlEscaped(title(sound.titles, "en") ?? sound.id))</h3>\n"
        if let de = title(sound.titles, "de") { html += "<p class=\"de\" lang=\"de\">\(xmlEscaped(de))</p>\n" }
        html += "<audio controls loop preload=\"metadata\" src=\"\(xmlEscaped(percentEncoded(sound.file)))\"></audio>\n"
        html += "<p class=\"facts\">"
        html += "<span title=\"integrated loudness\">\(minus(String(format: sound.integratedLoudnessLUFS, digits: 1))) LUFS</span>"
        html += "<span title=\"true peak\">\(minus(String(format: sound.truePeakDBTP, digits: 1))) dBTP</span>"
        html += "<span>\(duration(sound.durationSeconds))</span>"
        html += "<span>\(kilohertz(sound.sampleRate)) kHz \(sound.channels == 1 ? "mono" : sound.channels == 2 ? "stereo" : "\(sound.channels) ch")</span>"
        if sound.loop { html += "<span>loop</span>" }
        if let f = sound.frequencyHz { html += "<span>for \(String(format: f, digits: 0)) Hz</span>" }
        html += "</p>\n"
        html += "<p class=\"file\">\(xmlEscaped(sound.file)) · \(sound.container.rawValue.uppercased()) \(sound.sampleFormat.rawValue)</p>\n"
        if !spectrum.isEmpty { html += "<div class=\"spectrum\">\n\(spectrum)</div>\n" }
        html += "</article>\n"
        return html
    }

    /// A typographic minus for a leading hyphen ("−23.0").
    static func minus(_ text: String) -> String { text.hasPrefix("-") ? "\u{2212}" + text.dropFirst() : text }

    /// "48", "44.1".
    static func kilohertz(_ hz: Int) -> String { hz % 1000 == 0 ? "\(hz / 1000)" : String(format: Double(hz) / 1000, digits: hz % 100 == 0 ? 1 : 3) }

    /// The title in `language`, nil when missing or empty.
    static func title(_ titles: [String: String], _ language: String) -> String? {
        titles[language].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// "0:42", "1:00", "1:02:03" (whole seconds, cut as a player's clock shows them: 440.76 s is "7:20");
    /// under 10 s with a decimal, e.g. "5.0 s".
    package static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: seconds, digits: 1) + " s" }
        let total = Int(seconds.rounded(.down))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):\(m < 10 ? "0\(m)" : "\(m)"):\(ss)" }
        return "\(m):\(ss)"
    }

    /// A relative URL for a file name (ids are letters, digits, - and _, so this only guards odd names).
    static func percentEncoded(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            let c = Character(UnicodeScalar(byte))
            if c.isLetter && byte < 128 || c.isNumber && byte < 128 || "-_.~".contains(c) { out.append(c) } else {
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }
}

