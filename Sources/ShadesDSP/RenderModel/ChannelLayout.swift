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

/// Which ears something is for: a layer of a mix, a notch.
public enum Ears: String, Sendable, Equatable, Codable, CaseIterable {
    case both, left, right

    /// True when output channel `channel` of a `channelCount`-channel output is one of these ears (a mono
    /// output is both ears).
    public func includes(outputChannel channel: Int, of channelCount: Int) -> Bool {
        switch self {
        case .both: return true
        case .left: return channelCount == 1 || channel == 0
        case .right: return channelCount == 1 || channel == 1
        }
    }
}
