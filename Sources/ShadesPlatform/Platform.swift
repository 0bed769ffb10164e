// The C library, imported once for every module of Shades: Glibc on Linux, Darwin on Apple systems. A
// module writes `import ShadesPlatform` (never `@_exported`), so the C library stays out of the modules
// an app imports. This target is not a product.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// The C functions that Shades' own declarations shadow (a `free`, `exit` or `open` of a type's own),
/// under one name on every platform. Each does exactly what the C function of the same name does: it
/// calls it through this module, which re-exports the platform's C library.
package enum Platform {
    /// `exit(3)`: runs the atexit handlers, flushes stdio and ends the process with `code`.
    package static func exit(_ code: Int32) -> Never { ShadesPlatform.exit(code) }

    /// `free(3)`: returns memory from `malloc(3)` or `posix_memalign(3)`.
    package static func free(_ pointer: UnsafeMutableRawPointer?) { ShadesPlatform.free(pointer) }

    /// `open(2)`; `mode` applies when `flags` holds O_CREAT. Returns the descriptor, or −1 with errno set.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { ShadesPlatform.open(path, flags, mode) }

    /// `close(2)`: 0, or −1 with errno set.
    package static func close(_ descriptor: Int32) -> Int32 { ShadesPlatform.close(descriptor) }

    /// `write(2)`: the bytes written, or −1 with errno set.
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        ShadesPlatform.write(descriptor, bytes, count)
    }

    /// `read(2)`: the bytes read (0 at the end of the file), or −1 with errno set.
    package static func read(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        ShadesPlatform.read(descriptor, bytes, count)
    }

    /// `link(2)`: a second name `path` for the file `existing`; 0, or −1 with errno set.
    package static func link(_ existing: String, _ path: String) -> Int32 { ShadesPlatform.link(existing, path) }

    /// `rename(2)`: 0, or −1 with errno set.
    package static func rename(_ from: String, _ to: String) -> Int32 { ShadesPlatform.rename(from, to) }

    /// `unlink(2)`: 0, or −1 with errno set.
    package static func unlink(_ path: String) -> Int32 { ShadesPlatform.unlink(path) }
}
