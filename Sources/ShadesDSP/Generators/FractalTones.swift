import ShadesPlatform

/// The parameters of fractal tones: chime-like melodies whose pitch and timing follow a 1/f random process
/// over a musical scale, so the melody is self-similar but never repeats. After the idea of the Widex Zen
/// program (music synthesised by a pseudo-random process in an ear-level device: US patent 6,816,599,
/// expired; for tinnitus: Sweetow & Sabes 2010, J Am Acad Audiol 21:461–473). Written from that idea with
/// the Voss–McCartney 1/f sequence (``VossMcCartneySequence``); the details below are this library's.
///
/// - Pitch: the scale is built on `lowHz` (its tonic) in equal temperament: pitch
///   lowHz·2^(s/12) for every semitone s whose degree is in the scale, up to `highHz`. A note's pitch is
///   a 1/f sequence (6 rows of 0 … 3, sum 0 … 18) mapped linearly onto the pitches in range.
/// - Timing: a grid of 60/tempo s; note k lasts 1 … 4 grid steps from a second 1/f sequence (3 rows of
///   0 … 1), and starts when the one before ends, so every onset is on the grid: step j starts at frame
///   round(j · 60 · rate / tempo), computed from j alone (frame-exact however long the stream runs).
/// - Timbre: a struck chime: partials at 1, 2 and 4 times the pitch (octaves, so every spectral peak is
///   a pitch class of the scale) with amplitudes 1, 0.5, 0.25, each decaying exponentially with time
///   constant 0.8 s / h; a 5-ms raised-cosine attack from 0 at the onset frame, and a raised-cosine
///   release (30 ms, or half a short note) reaching 0 exactly at the next onset. One note sounds at a
///   time. Partials at or above 0.45 × the sample rate are left out.
package struct FractalTones: Sendable, Equatable {
    package typealias Scale = MusicalScale

    package var scale: Scale
    /// The lowest pitch and the scale's tonic, Hz (C5 by default).
    package var lowHz: Double
    /// The highest pitch allowed, Hz (C7 by default); at least the scale's second pitch above `lowHz`.
    package var highHz: Double
    /// Grid steps per minute (a note lasts 1 … 4 steps).
    package var tempoBPM: Double

    /// Defaults: pentatonic from C5 (523.25 Hz) to C7 (2093 Hz), 80 steps a minute.
    package init(scale: Scale = .pentatonic, lowHz: Double = defaultLowHz, highHz: Double = defaultHighHz,
                 tempoBPM: Double = Parameter.tempo.defaultValue!) {
        (self.scale, self.lowHz, self.highHz, self.tempoBPM) = (scale, lowHz, highHz, tempoBPM)
    }

    /// C5 and C7 in equal temperament with A4 = 440 Hz, Hz.
    package static let defaultLowHz = 440 * pow(2, 3.0 / 12), defaultHighHz = 440 * pow(2, 27.0 / 12)
    /// Allowed tempos, BPM.
    package static let allowedTempoBPM: ClosedRange<Double> = 20...240
    /// Lowest tonic, Hz.
    package static let lowestHz = 20.0

    /// The pitches of the scale from `lowHz` up to `highHz`, ascending, Hz.
    package var pitchesHz: [Double] {
        var pitches: [Double] = []
        var s = 0
        while true {
            let f = lowHz * pow(2, Double(s) / 12)
            if f > highHz * (1 + 1e-12) || !f.isFinite { break }
            if scale.semitones.contains(s % 12) { pitches.append(f) }
            s += 1
        }
        return pitches
    }

    /// Frames per grid step at `sampleRate`: 60 · rate / tempo.
    package func gridFrames(sampleRate: Double) -> Double { 60 * sampleRate / tempoBPM }

    /// Checks every parameter at `sampleRate`; the error names the parameter and its allowed range.
    package func validate(sampleRate: Double) throws(ShadesError) {
        try validateSampleRate(sampleRate)
        try Parameter.tempo.check(tempoBPM)
        try Parameter.lowPitch.check(lowHz, within: .from(Self.lowestHz, below: sampleRate / 2, unit: .hertz), note: "(Nyquist)")
        try Parameter.highPitch.check(highHz, within: .above(0, below: sampleRate / 2, unit: .hertz), note: "(Nyquist)")
        let second = lowHz * pow(2, Double(scale.semitones[1]) / 12)
        guard highHz >= second * (1 - 1e-12) else {
            throw Parameter.highPitch.outOfRange(highHz, range: .from(second, below: sampleRate / 2, unit: .hertz),
                                                 note: "(at least two pitches of the scale from the low pitch)")
        }
    }
}

/// A musical scale: the degrees fractal tones (`FractalTones`) draw their notes from.
public enum MusicalScale: String, Sendable, Equatable, Codable, CaseIterable {
    /// Major pentatonic: 0, 2, 4, 7, 9 semitones (no semitone steps: no dissonant neighbours).
    case pentatonic
    /// Minor pentatonic: 0, 3, 5, 7, 10.
    case minorPentatonic = "minor-pentatonic"
    case major
    /// Natural minor (Aeolian).
    case minor
    case dorian
    case mixolydian
    /// Whole tone: 0, 2, 4, 6, 8, 10.
    case wholeTone = "whole-tone"

    /// Degrees of the scale in semitones above the tonic, 0 … 11.
    package var semitones: [Int] {
        switch self {
        case .pentatonic: return [0, 2, 4, 7, 9]
        case .minorPentatonic: return [0, 3, 5, 7, 10]
        case .major: return [0, 2, 4, 5, 7, 9, 11]
        case .minor: return [0, 2, 3, 5, 7, 8, 10]
        case .dorian: return [0, 2, 3, 5, 7, 9, 10]
        case .mixolydian: return [0, 2, 4, 5, 7, 9, 10]
        case .wholeTone: return [0, 2, 4, 6, 8, 10]
        }
    }
}

/// The notes of ``FractalTones``: onsets in grid steps, lengths and pitches, from two 1/f sequences.
/// Sequential (a 1/f value depends on the ones before), so a stream starts at step 0.
package struct FractalToneSequence: Sendable {
    package struct Note: Sendable, Equatable, Hashable {
        /// Grid step of the onset.
        package var step: Int
        /// Length in grid steps, 1 … 4.
        package var steps: Int
        /// Index into ``FractalTones/pitchesHz``.
        package var pitch: Int
    }

    private var pitches: VossMcCartneySequence
    private var lengths: VossMcCartneySequence
    private let pitchCount: Int
    private var nextStep = 0

    package init(pitchCount: Int, seed: UInt64) {
        self.pitchCount = pitchCount
        pitches = VossMcCartneySequence(rows: 6, maximum: 3, key: SeedStream.schedule.key(seed: seed, channel: 0))
        lengths = VossMcCartneySequence(rows: 3, maximum: 1, key: SeedStream.schedule.key(seed: seed, channel: 1))
    }

    /// Probability of a note lasting 1, 2, 3, 4 steps: the sum of three fair coins, plus one.
    package static let lengthProbabilities = [1.0, 3, 3, 1].map { $0 / 8 }

    package mutating func next() -> Note {
        let value = pitches.next()
        let pitch = Int((Double(value) * Double(pitchCount - 1) / Double(pitches.largestValue)).rounded())
        let note = Note(step: nextStep, steps: lengths.next() + 1, pitch: pitch)
        nextStep += note.steps
        return note
    }
}

/// Fractal tones (``FractalTones``), one signal.
///
/// Each sample is computed in order within its note from the note's own frame count (phasors and decays
/// advanced one frame at a time, in Double), so any block sizes give the same samples. Allocation-free
/// after init. In a loop (`loopFrames`), the note sounding at the loop's end is released to 0 exactly
/// there, so the loop closes without a seam when it is a whole number of grid steps long (the caller
/// adjusts the tempo).
///
/// Level: the amplitude is set so that the expected RMS (over the lengths' distribution, partials summed
/// in power) is `levelDBFS`; a file is measured by ``SoundGraph``'s usual pass.
package final class FractalToneSource: AudioSource {
    package let sampleRate: Double
    package var channelCount: Int { 1 }
    package let tones: FractalTones
    /// The scale's pitches in range, Hz.
    package let pitchesHz: [Double]
    private let gridFrames: Double
    private let loopFrames: Int?
    private let amplitude: Double
    private let partialAmplitudes: SIMD4<Double>
    private let decayPerFrame: SIMD4<Double>
    private let attackFrames: Int
    private let releaseFrames: Int
    /// Gains 0 … R of the attack and the full release ramps (`raisedCosineGain`), made once: no cosine per frame.
    private let attackRamp: [Double], releaseRamp: [Double]
    private var sequence: FractalToneSequence
    private var position = 0

    // The note sounding: onset and end frames, and its partials' state.
    private var noteOnset = 0
    private var noteEnd = 0
    private var noteRelease = 0
    private var cosine = SIMD4<Double>(), sine = SIMD4<Double>()
    private var rotationCos = SIMD4<Double>(), rotationSin = SIMD4<Double>()
    private var decay = SIMD4<Double>()

    /// Partials as multiples of the pitch; their amplitudes; the fundamental's decay time constant, s.
    package static let partials = SIMD4<Double>(1, 2, 4, 0), partialGains = SIMD4<Double>(1, 0.5, 0.25, 0)
    package static let decaySeconds = 0.8, attackSeconds = 0.005, releaseSeconds = 0.030

    /// - Parameters:
    ///   - levelDBFS: RMS level in expectation, dBFS.
    ///   - seed: chooses the melody.
    ///   - loopFrames: the length of a loop (the note sounding there is released to end at it), or nil.
    package init(tones: FractalTones, sampleRate: Double, levelDBFS: Double = -20, seed: UInt64 = 1,
                 loopFrames: Int? = nil) throws(ShadesError) {
        try tones.validate(sampleRate: sampleRate)
        try Parameter.level.check(levelDBFS, within: .finite(unit: .dBFS))
        self.sampleRate = sampleRate
        self.tones = tones
        pitchesHz = tones.pitchesHz
        gridFrames = tones.gridFrames(sampleRate: sampleRate)
        self.loopFrames = loopFrames
        attackFrames = max(1, Int((Self.attackSeconds * sampleRate).rounded()))
        releaseFrames = max(1, Int((Self.releaseSeconds * sampleRate).rounded()))
        attackRamp = (0...attackFrames).map { [attackFrames] in raisedCosineGain($0, rampFrames: attackFrames) }
        releaseRamp = (0...releaseFrames).map { [releaseFrames] in raisedCosineGain($0, rampFrames: releaseFrames) }
        sequence = FractalToneSequence(pitchCount: pitchesHz.count, seed: seed)
        partialAmplitudes = Self.partialGains
        let timeConstants = Self.decaySeconds * sampleRate / SIMD4<Double>(1, 2, 4, 1)
        decayPerFrame = SIMD4(exp(-1 / timeConstants[0]), exp(-1 / timeConstants[1]), exp(-1 / timeConstants[2]), 0)
        // Expected power at unit amplitude: each note's energy (partials in power, ramps left out) over the
        // lengths' distribution, per expected frame.
        var energy = 0.0
        for (index, probability) in FractalToneSequence.lengthProbabilities.enumerated() {
            let frames = Double(index + 1) * gridFrames
            for h in 0..<3 {
                let r = decayPerFrame[h] * decayPerFrame[h]
                energy += probability * partialAmplitudes[h] * partialAmplitudes[h] / 2 * (1 - pow(r, frames)) / (1 - r)
            }
        }
        let meanFrames = 2.5 * gridFrames
        amplitude = Decibels.amplitude(levelDBFS) / (energy / meanFrames).squareRoot()
    }

    /// First frame of grid step `step`: round(step · 60 · rate / tempo).
    package func onsetFrame(step: Int) -> Int { Int((Double(step) * gridFrames).rounded()) }

    /// Starts the next note of the sequence at `noteEnd`.
    private func startNote() {
        let note = sequence.next()
        noteOnset = onsetFrame(step: note.step)
        noteEnd = onsetFrame(step: note.step + note.steps)
        if let loopFrames, noteOnset < loopFrames { noteEnd = min(noteEnd, loopFrames) }
        noteRelease = min(releaseFrames, (noteEnd - noteOnset) / 2)
        let omega = 2 * Double.pi * pitchesHz[note.pitch] / sampleRate * Self.partials
        var audible = SIMD4<Double>()
        for h in 0..<3 where Self.partials[h] * pitchesHz[note.pitch] < 0.45 * sampleRate { audible[h] = 1 }
        cosine = SIMD4(repeating: 1)
        sine = SIMD4(repeating: 0)
        rotationCos = SIMD4(cos(omega[0]), cos(omega[1]), cos(omega[2]), cos(omega[3]))
        rotationSin = SIMD4(sin(omega[0]), sin(omega[1]), sin(omega[2]), sin(omega[3]))
        decay = partialAmplitudes * audible
    }

    /// `raisedCosineGain(x, rampFrames:)` from `table` when it holds that ramp and `x` (a note shorter than two
    /// releases has a shorter one).
    @inline(__always) private static func rampGain(_ x: Int, rampFrames frames: Int, table: [Double]) -> Double {
        frames == table.count - 1 && x >= 0 && x <= frames ? table[x] : raisedCosineGain(x, rampFrames: frames)
    }

    /// Nothing to prepare: every buffer is made in `init`.
    package func prepareForRealTime(_ preparation: RealTimePreparation) {}

    package func render(into block: AudioBlock) {
        precondition(block.channelCount == 1, "fractal tones render one signal")
        let out = block.channel(0).baseAddress!
        var n = position
        let end = position + block.frameCount
        while n < end {
            if n >= noteEnd { startNote() }
            let stop = min(end, noteEnd)
            let attackEnd = noteOnset + attackFrames, releaseStart = noteEnd - noteRelease
            while n < stop {
                var gain = amplitude
                if n < attackEnd { gain *= Self.rampGain(n - noteOnset, rampFrames: attackFrames, table: attackRamp) }
                if n > releaseStart { gain *= Self.rampGain(noteEnd - n, rampFrames: noteRelease, table: releaseRamp) }
                out[n - position] = Float(gain * (sine * decay).sum())
                (cosine, sine) = (cosine * rotationCos - sine * rotationSin, cosine * rotationSin + sine * rotationCos)
                decay *= decayPerFrame
                n += 1
            }
        }
        position = end
    }
}

extension Parameter {
    /// The scale of fractal tones.
    package static let scale = Parameter(.scale, note: FractalTones.Scale.allCases.map(\.rawValue).joined(separator: ", "))
    /// Fractal tones' lowest pitch (the scale's tonic), Hz: ``FractalTones/lowestHz`` up to Nyquist.
    package static let lowPitch = Parameter(.lowPitch, unit: .hertz, range: .atLeast(FractalTones.lowestHz, unit: .hertz),
                                            default: FractalTones.defaultLowHz)
    /// Fractal tones' highest pitch, Hz; at least the scale's second pitch, below Nyquist.
    package static let highPitch = Parameter(.highPitch, unit: .hertz, range: .above(0, unit: .hertz), default: FractalTones.defaultHighHz)
    /// Fractal tones' grid steps per minute: ``FractalTones/allowedTempoBPM``.
    package static let tempo = Parameter(.tempo, unit: .beatsPerMinute,
                                         range: ParameterRange(FractalTones.allowedTempoBPM, unit: .beatsPerMinute), default: 80)
}
