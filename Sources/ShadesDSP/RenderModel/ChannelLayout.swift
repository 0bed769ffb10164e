/// How a generated signal is placed in the output channels.
public enum ChannelLayout: String, CaseIterable, Sendable, Codable {
    /// One channel.
    case mono
    /// Two channels with independent signals (for noise: independent noise per ear).
    case stereo
    /// Two channels carrying the same signal (identical in both ears).
    case diotic
    /// Two channels, signal in the left ear, right ear silent.
    case left
    /// Two channels, signal in the right ear, left ear silent.
    case right

    /// Channels in the output.
    public var outputChannelCount: Int { self == .mono ? 1 : 2 }

    /// Independent signals a generator makes for this layout.
    package var signalCount: Int { self == .stereo ? 2 : 1 }

    /// The signal feeding output channel `channel`, or nil for a silent channel.
    package func signal(forOutputChannel channel: Int) -> Int? {
        switch self {
        case .mono, .diotic: return 0
        case .stereo: return channel
        case .left: return channel == 0 ? 0 : nil
        case .right: return channel == 1 ? 0 : nil
        }
    }
}

extension ChannelLayout {
    /// Places the layout's signals in `block`'s channels: `renderSignal(s, channel)` writes signal `s` into
    /// the first channel that carries it, the other channels carrying it copy that one, and silent
    /// channels are zeroed. The one place a signal is fanned out to channels (``ChannelLayoutSource``, the
    /// chunked generators).
    package func fill(_ block: AudioBlock, renderSignal: (_ signal: Int, _ into: UnsafeMutableBufferPointer<Float>) -> Void) {
        precondition(block.channelCount == outputChannelCount, "block has the wrong channel count")
        var firstChannel = (-1, -1)  // of signals 0 and 1
        for c in 0..<outputChannelCount {
            let destination = block.channel(c)
            guard let s = signal(forOutputChannel: c) else {
                destination.update(repeating: 0)
                continue
            }
            let first = s == 0 ? firstChannel.0 : firstChannel.1
            if first >= 0 {
                destination.baseAddress!.update(from: block.channel(first).baseAddress!, count: block.frameCount)
            } else {
                renderSignal(s, destination)
                if s == 0 { firstChannel.0 = c } else { firstChannel.1 = c }
            }
        }
    }
}

/// Which ears something is for: a layer of a mix, a notch.
public enum Ears: String, Sendable, Equatable, Codable, CaseIterable {
    case both, left, right

    /// True when output channel `channel` of a `channelCount`-channel output is one of these ears (a mono
    /// output is both ears).
    package func includes(outputChannel channel: Int, of channelCount: Int) -> Bool {
        switch self {
        case .both: return true
        case .left: return channelCount == 1 || channel == 0
        case .right: return channelCount == 1 || channel == 1
        }
    }
}
