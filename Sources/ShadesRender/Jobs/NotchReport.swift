import ShadesDSP
import ShadesIO
import ShadesPlatform

extension [NotchSpec] {
    /// Notches for bilateral tinnitus with a frequency per ear: `left`'s for the left ear, `right`'s for
    /// the right (an ear with none is left unfiltered, only delayed, so the ears stay aligned).
    package static func perEar(left: [NotchSpec], right: [NotchSpec]) -> [NotchSpec] {
        left.map { var n = $0; n.ears = .left; return n } + right.map { var n = $0; n.ears = .right; return n }
    }

    /// The notches of each of `channelCount` channels (a notch for one ear goes to that channel of a
    /// stereo file).
    func notches(channelCount: Int) -> [[NotchSpec]] {
        (0..<channelCount).map { c in filter { $0.ears == .both || $0.ears.includes(outputChannel: c, of: channelCount) } }
    }

    /// "6000Hz/1oct", "4000Hz/0.5oct+20dB/0.375oct,8000Hz/1oct" or "none".
    var summaryText: String {
        isEmpty ? "none" : map { n in
            "\(formatNumber(n.centreHz))Hz/\(formatNumber(n.widthOctaves))oct"
                + (n.edgeBoostDB == 0 ? "" : "+\(formatNumber(n.edgeBoostDB))dB/\(formatNumber(n.edgeWidthOctaves))oct")
        }.joined(separator: ",")
    }

    /// Text for the comment tag: "notch=6000Hz/1oct", or per ear "left=4000Hz/0.5oct+20dB/0.375oct right=…".
    var commentSummary: String {
        guard contains(where: { $0.ears != .both }) else { return "notch=" + summaryText }
        let left = filter { $0.ears != .right }, right = filter { $0.ears != .left }
        return "left=\(left.summaryText) right=\(right.summaryText)"
    }
}

/// How much of the music's power lies in and beside one notch: what a notched-music therapy needs to
/// mean anything (the notch removes the band; the lateral-inhibition rationale needs power next to it).
///
/// Shares are of the power from 20 Hz to Nyquist of the input (after resampling), from its Welch spectrum
/// (Hann frames of the notch filter's FFT size, taken from the filter's own transforms), averaged over
/// ``channels``.
package struct NotchSuitability: Sendable, Encodable, Equatable {
    /// The channels measured (0-based), whose spectra were averaged: those with this notch.
    package let channels: [Int]
    package let notch: NotchSpec
    /// The notch band's edges in Hz: centre·2^(∓width/2).
    package let lowerEdgeHz: Double
    package let upperEdgeHz: Double
    /// Percent of the power inside the notch band.
    package let bandSharePercent: Double
    /// Percent of the power in the half octave below the lower edge.
    package let belowSharePercent: Double
    /// Percent of the power in the half octave above the upper edge (up to Nyquist).
    package let aboveSharePercent: Double
    /// Band plus both half octaves, in percent: compared with ``NotchedMusic/minimumNearSharePercent``.
    package let nearSharePercent: Double
    /// The same shares in dB re the total power (10·log10 of the fraction; −300 for none).
    package let bandLevelDB: Double
    package let belowLevelDB: Double
    package let aboveLevelDB: Double
    package let nearLevelDB: Double
    /// Why the music is unsuited to this notch, or nil.
    package let warning: String?

    init(channels: [Int], notch: NotchSpec, bandSharePercent: Double, belowSharePercent: Double,
         aboveSharePercent: Double, warning: String?) {
        self.channels = channels
        self.notch = notch
        lowerEdgeHz = notch.lowerEdgeHz
        upperEdgeHz = notch.upperEdgeHz
        self.bandSharePercent = bandSharePercent
        self.belowSharePercent = belowSharePercent
        self.aboveSharePercent = aboveSharePercent
        nearSharePercent = bandSharePercent + belowSharePercent + aboveSharePercent
        bandLevelDB = Self.decibels(bandSharePercent)
        belowLevelDB = Self.decibels(belowSharePercent)
        aboveLevelDB = Self.decibels(aboveSharePercent)
        nearLevelDB = Self.decibels(nearSharePercent)
        self.warning = warning
    }

    /// 10·log10 of a share given in percent; −300 for none.
    static func decibels(_ percent: Double) -> Double { percent > 0 ? Decibels.fromPower(percent / 100) : -300 }
}

/// What ``NotchedMusic/process(_:)`` did to one file.
package struct NotchReport: Sendable, Encodable, Equatable {
    package let input: String
    package let output: String
    /// Input and output rates in Hz.
    package let inputSampleRate: Double
    package let sampleRate: Double
    package let channels: Int
    /// Input frames decoded (for MP3 and Ogg, whose header only estimates the length, a count the header
    /// may exceed).
    package let inputFrames: Int
    /// Output frames: the input's (after resampling, round(n · rate ratio)).
    package let frames: Int
    /// The notch filters' output delay removed, in output frames (the longest channel's; shorter ones were
    /// delayed to it).
    package let outputDelayFrames: Int
    package let sampleFormat: SampleFormat
    /// True peak of the input after resampling (before the notches), dBTP, largest over channels.
    package let inputTruePeakDBTP: Double
    /// True peak of the notched signal before the gain, dBTP, largest over channels.
    package let truePeakBeforeGainDBTP: Double
    /// Gain applied to the whole file so its true peak stays at or below the ceiling, in dB (0 or less).
    package let gainDB: Double
    /// The ceiling asked for, dBTP.
    package let ceilingDBTP: Double
    /// The output's true peak: before-gain peak plus the gain, dBTP.
    package let truePeakDBTP: Double
    /// Power in and beside each notch, per group of channels sharing notches.
    package let suitability: [NotchSuitability]
    /// The suitability warnings.
    package let warnings: [String]
    /// Things the user should know, e.g. a notch too low for a filter as steep as specified.
    package let notes: [String]
    /// Set when the frames read are not all the input announces or holds (``AudioFileInput/lengthWarning``:
    /// a cut MP3, or one libsndfile stops reading at its estimate): the frames read were notched.
    package let lengthWarning: String?
}

// MARK: - The suitability analysis

extension NotchedMusic {
    /// The suitability of each group of channels that share their notches.
    static func suitability(_ spectra: [PowerSpectrum?], channelNotches: [[NotchSpec]], sampleRate outputRate: Double) -> [NotchSuitability] {
        var groups: [(notches: [NotchSpec], channels: [Int])] = []
        for (c, list) in channelNotches.enumerated() where !list.isEmpty {
            if let g = groups.firstIndex(where: { $0.notches == list }) {
                groups[g].channels.append(c)
            } else {
                groups.append((list, [c]))
            }
        }
        let nyquist = outputRate / 2
        return groups.flatMap { group -> [NotchSuitability] in
            let spectrum = PowerSpectrum.average(group.channels.compactMap { spectra[$0] })
            let total = spectrum?.bandPower(from: NotchedMusic.totalPowerFromHz, to: nyquist) ?? 0
            return group.notches.map { notch in
                let (lower, upper) = (notch.lowerEdgeHz, notch.upperEdgeHz)
                func share(_ from: Double, _ to: Double) -> Double {
                    guard let spectrum, total > 0, to > from else { return 0 }
                    return 100 * spectrum.bandPower(from: from, to: to) / total
                }
                let band = share(lower, min(upper, nyquist))
                let below = share(lower / 2.0.squareRoot(), lower)
                let above = share(upper, min(upper * 2.0.squareRoot(), nyquist))
                let near = band + below + above
                let warning: String?
                let name = "\(formatNumber(notch.centreHz)) Hz"
                if spectrum == nil {
                    warning = "the music is too short to measure its power near \(name)"
                } else if total <= 0 {
                    warning = "the music is silent: a notch at \(name) changes nothing"
                } else if near < NotchedMusic.minimumNearSharePercent {
                    warning = "the music has too little power near \(name) for the therapy: \(String(format: near, digits: 2)) % "
                        + "(\(String(format: NotchSuitability.decibels(near), digits: 1)) dB) of its power lies in the notch and the half "
                        + "octaves beside it (needed: at least \(formatNumber(NotchedMusic.minimumNearSharePercent)) %)"
                } else {
                    warning = nil
                }
                return NotchSuitability(channels: group.channels, notch: notch, bandSharePercent: band,
                                        belowSharePercent: below, aboveSharePercent: above, warning: warning)
            }
        }
    }
}
