import ShadesIO
import ShadesRender

// The files each command reads, for ``CommandPaths``' check of its outputs against them (no output may be
// an input, by any spelling or link).

extension SoundOptions {
    /// Every file `request` (made from these options) reads: its sound files (SOURCE, or the music of a
    /// `--sound` file and its mix layers), `--sound`, `--audiogram` and `--from-match`.
    func inputs(of request: RenderRequest) -> [CommandInput] {
        var inputs = request.sound.files.map { CommandInput($0.path) }
        if let soundFile { inputs.append(CommandInput(soundFile, name: "--sound")) }
        if let audiogram = shaping.audiogram { inputs.append(CommandInput(audiogram, name: "--audiogram")) }
        if let fromMatch { inputs.append(CommandInput(fromMatch, name: "--from-match")) }
        return inputs
    }
}

extension TinnitusOptions {
    /// `--audiogram` and `--from-match`, where given.
    var inputs: [CommandInput] {
        [audiogram.map { CommandInput($0, name: "--audiogram") }, match.input].compactMap { $0 }
    }

    /// Checks `-o`, when given, before the procedure runs (``CommandPaths/checkOutput(_:option:inputs:createsFolders:)``).
    func checkOutput() throws { try result.checkOutput(inputs: inputs) }
}
