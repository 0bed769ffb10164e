import ShadesDSP
import ShadesRender

// Each command's help for the options commands share (``OptionHelp``): a command's option list states its
// own default and notes, not another command's. The ranges come from the parameters' definitions.

/// The sample-rate range and examples every `--rate` help starts from; `of` says whose rate it is.
private func rateRange(of what: String? = nil) -> String {
    "Sample rate\(what.map { " of " + $0 } ?? "") in Hz, 8000 … 192000 (48000, 44.1kHz …)"
}
/// The sample formats every `--format` help starts from.
private let sampleFormats = "Sample format: s16 (TPDF-dithered), s24 or f32 (WAV only)"

/// `render` and `play`: a sound.
enum SoundHelp {
    enum Rate: OptionHelp { static let text = "\(rateRange()). Default 48000; a sound file keeps its own." }
    enum Level: OptionHelp {
        static var text: String { "RMS level in dBFS (-20, -20dBFS; default -20, or the sound's own: \(Generator.levelNotes))." }
    }
    enum Seed: OptionHelp {
        static let text = "Random seed: the same seed and values give byte-identical samples (default 1, or the sound's own)."
    }
    enum Channels: OptionHelp {
        static let text = "mono, stereo (independent noise per ear), diotic (the same in both ears), left or right (default stereo)."
    }
    enum Duration: OptionHelp {
        static let text = "Length: 90s, 10m, 1h, 1.5s, 50ms or plain seconds (optional with --pulse-count)."
    }
    enum Format: OptionHelp {
        static let text = "\(sampleFormats). Default s16; s24 with a notch (16-bit dither would fill it)."
    }
    enum TinnitusFrequency: OptionHelp {
        static let text = "The tinnitus frequency of the personalised sounds, e.g. 6kHz, for their --preset ids."
    }
}

/// `stimuli`, `tinnitus-quality`, `revcorr` and `mml`'s noise: a set of files or a noise made for a procedure.
enum SetHelp {
    enum Rate: OptionHelp { static let text = "\(rateRange()). Default 48000." }
    enum Level: OptionHelp { static let text = "RMS level in dBFS (-20, -20dBFS; default -20)." }
    enum TinnitusQualityLevel: OptionHelp {
        static var text: String { "RMS level in dBFS (-26, -26dBFS; default \(formatNumber(StimulusSets.tinnitusQualityLevelDBFS)))." }
    }
    enum NoLevel: OptionHelp {
        static let text = "Not for this set: the masker's level comes from --reference (or --reference-from) and --above."
    }
    enum Seed: OptionHelp {
        static let text = "Random seed of the noise: the same seed and values give byte-identical samples (default 1)."
    }
    enum Channels: OptionHelp {
        static let text = "mono, stereo (independent noise per ear), diotic (the same in both ears), left or right (default diotic)."
    }
    enum Format: OptionHelp {
        static let text = "\(sampleFormats). Default: the first that carries the set's quietest file (s16 down to -69.9 dBFS)."
    }
}

/// `match` and `audiometry`: a procedure that draws its own random choices; `revcorr simulate`'s listener.
enum ProcedureHelp {
    enum Seed: OptionHelp {
        static let text = "Random seed of the run's choices: the same seed gives the same run (default: a fresh one, written in the result)."
    }
    enum SimulationSeed: OptionHelp {
        static let text = "Random seed of the simulated listener: the same seed and values give the same answers (default 1)."
    }
    enum MatchLevel: OptionHelp {
        static let text = "RMS level in dBFS of the tones before their loudness balance, which raises them to -6 at most (default -30)."
    }
}

/// `audiometry` and `stimuli audiometry`.
enum AudiometryHelp {
    enum Ear: OptionHelp { static let text = "left, right or both: in turn, right first." }
    enum SetEar: OptionHelp { static let text = "left, right or both: a file per ear." }
    enum Frequencies: OptionHelp {
        static let text = "Comma-separated frequencies, e.g. 125,250,1kHz,6kHz, each 125 … 16000 Hz (default 125,250,500,1k,2k,3k,4k,6k,8k)."
    }
    enum SetFrequencies: OptionHelp {
        static let text = "Comma-separated frequencies, e.g. 125,250,1kHz,6kHz (default 125,250,500,1k,2k,3k,4k,6k,8k)."
    }
    enum StartLevel: OptionHelp {
        static let text = "The first level of each tone (default 30 dB HL, or -40 dBFS without a calibration)."
    }
}

/// `loudness-match`, `mml` and `mril`: the tinnitus's loudness and its masking.
enum MaskingHelp {
    enum Ear: OptionHelp { static let text = "left, right or both: the ears the sound plays in (both: at once)." }
    enum NoSeed: OptionHelp { static let text = "Not for a tone, which has no noise to seed." }
    /// How `--ear` chooses the threshold of `--audiogram`, for the commands' discussions.
    static let earsOfAnAudiogram = """
        With --audiogram, --ear both (the default) takes the better threshold of the ears the audiogram has \
        thresholds for (the one ear's, with a warning, when it holds one ear's); --ear left or right needs that \
        ear's.
        """
    enum StartLevel: OptionHelp { static let text = "The noise's first level in dBFS (default the threshold, else -70)." }
}

/// `notch` and `notch-filter`.
enum NotchHelp {
    enum Rate: OptionHelp { static let text = "\(rateRange(of: "the output")): resamples the music. Default: the input's own." }
    enum FilterRate: OptionHelp { static let text = "\(rateRange(of: "the filter")). Default 48000." }
    enum Format: OptionHelp { static let text = "\(sampleFormats). Default s24 (16-bit dither would fill the notch)." }
}

/// `catalogue build`.
enum CatalogueHelp {
    enum Rate: OptionHelp { static let text = "\(rateRange(of: "every sound")). Default: the presets'." }
    enum TinnitusFrequency: OptionHelp {
        static let text = "The tinnitus frequency of the personalised sounds, e.g. 6kHz: adds their category."
    }
}

/// `meter`: a recording.
enum MeterHelp {
    enum Rate: OptionHelp { static let text = "\(rateRange(of: "the recording")). Default 48000." }
    enum Duration: OptionHelp {
        static let text = "Length of the recording: 90s, 10m, 1h, 1.5s, 50ms or plain seconds (default: until Ctrl-C)."
    }
}
