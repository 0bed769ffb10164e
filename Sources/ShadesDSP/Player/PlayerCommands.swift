/// A command for the audio thread, applied when the engine reaches `frame` (Int.min: at once).
struct Command {
    enum Action {
        case play(PlayerEngine.VoiceID, any AudioSource, gain: Float, fadeFrames: Int)
        case gain(PlayerEngine.VoiceID, Float, rampFrames: Int)
        case pause(PlayerEngine.VoiceID, fadeFrames: Int)
        case resume(PlayerEngine.VoiceID, fadeFrames: Int)
        case stop(PlayerEngine.VoiceID, fadeFrames: Int)
        case crossfade(from: PlayerEngine.VoiceID, to: PlayerEngine.VoiceID, any AudioSource, fadeFrames: Int)
        case masterGain(Float, rampFrames: Int)
        case masterPause(Bool, fadeFrames: Int)
        case timer(frames: Int, fadeFrames: Int, finishing: Bool)
    }
    let frame: Int
    let action: Action
}

/// One voice: a source, its gain and its fade envelope.
struct Voice {
    let id: PlayerEngine.VoiceID
    let source: any AudioSource
    var gain: Ramp
    var fade: Ramp
    var paused = false
    var stopping = false
}
