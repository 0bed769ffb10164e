import ShadesDSP

/// The `channels` key: the layout a sound fixes for itself (else the request's); on the command line the
/// shared `--channels`.
package enum ChannelsModifier: ModifierKind {
    package static let key = "channels"
    package static var slot: WritableKeyPath<Sound, ChannelLayout?> { \.channels }
    package static var parameters: [ModifierParameter] {
        [ModifierParameter(.layout, key: key), ModifierParameter(.channels, key: key)]
    }

    package static func read(in object: JSONObjectReader) throws(ShadesError) -> ChannelLayout? {
        try object.choice(key, ChannelLayout.self)
    }
}

/// The `seed` key: the seed a sound fixes for itself (else the request's; layer i of a mix uses seed + i); on
/// the command line the shared `--seed`.
package enum SeedModifier: ModifierKind {
    package static let key = "seed"
    package static var slot: WritableKeyPath<Sound, UInt64?> { \.seed }
    package static var parameters: [ModifierParameter] { [ModifierParameter(.seed, key: key)] }

    package static func read(in object: JSONObjectReader) throws(ShadesError) -> UInt64? { try object.unsigned(key) }
}
