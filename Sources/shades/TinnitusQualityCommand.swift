import ArgumentParser
import ShadesDSP
import ShadesRender

extension StimuliCommand {
    struct TinnitusQuality: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tinnitus-quality",
            abstract: "One sound per tinnitus-quality cluster, for the patient to choose the one most like their tinnitus.",
            usage: "shades stimuli tinnitus-quality [--frequency <f>] [<options>] -o <dir>",
            discussion: """
                The five clusters of tinnitus quality (PMC8060060), each a file at the same RMS level (default -26 \
                dBFS, where every sound fits): tonal (tinnitus-tone), steady noise (tinnitus-hiss, one octave), \
                high-frequency fluctuating (tinnitus-cricket) at --frequency, the patient's tinnitus frequency \
                (default 6 kHz); pulsatile (tinnitus-pulse, 500 Hz, 72 BPM) and low-frequency fluctuating \
                (tinnitus-roar, 150 Hz, 1 Hz) in their own low bands. 10 ms raised-cosine ramps; index.json names \
                each file's cluster and sound.
                Example:
                  shades stimuli tinnitus-quality --frequency 6kHz -o quality/
                """)

        @OptionGroup var set: SetOptions<SetHelp.TinnitusQualityLevel>

        @Option(parsing: .unconditional, help: "The patient's tinnitus frequency (default 6kHz).")
        var frequency: String?

        @Option(parsing: .unconditional, help: "Length of each file.")
        var duration: String = "10s"

        @OptionGroup var layout: ChannelsOption<SetHelp.Channels>

        @OptionGroup var seed: SeedOption<SetHelp.Seed>

        func run() throws {
            let (_, rate, container) = try set.parsed()
            let items = try StimulusSets.tinnitusQuality(
                frequencyHz: try frequency.map { try ValueParsing.hertz($0, parameter: .frequency) } ?? StimulusSets.defaultTinnitusFrequencyHz,
                durationSeconds: try ValueParsing.seconds(duration, parameter: .duration), layout: layout.channels ?? .diotic,
                levelDBFS: try set.level.dBFS() ?? StimulusSets.tinnitusQualityLevelDBFS, sampleRate: rate, seed: try seed.value(default: 1))
            try writeSet(items, name: "tinnitus-quality", options: set, container: container)
        }
    }
}
