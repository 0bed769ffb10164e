// The C library, imported once for every module of Shades: Glibc on Linux, Darwin on Apple systems. A
// module writes `import ShadesPlatform` (never `@_exported`), so the C library stays out of the modules
// an app imports. This target is not a product.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// The C functions that Shades' own declarations shadow (a `free`, `exit` or `open` of a type's own),
/// under one name on every platform. Each does exactly what the C function of the same name does.
package enum Platform {
    /// `exit(3)`: runs the atexit handlers, flushes stdio and ends the process with `code`.
    package static func exit(_ code: Int32) -> Never {
        #if canImport(Glibc)
        Glibc.exit(code)
        #elseif canImport(Darwin)
        Darwin.exit(code)
        #endif
    }

    /// `free(3)`: returns memory from `malloc(3)` or `posix_memalign(3)`.
    package static func free(_ pointer: UnsafeMutableRawPointer?) {
        #if canImport(Glibc)
        Glibc.free(pointer)
        #elseif canImport(Darwin)
        Darwin.free(pointer)
        #endif
    }

    /// `open(2)`; `mode` applies when `flags` holds O_CREAT. Returns the descriptor, or −1 with errno set.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags, mode)
        #elseif canImport(Darwin)
        Darwin.open(path, flags, mode)
        #endif
    }

    /// `close(2)`: 0, or −1 with errno set.
    package static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #elseif canImport(Darwin)
        Darwin.close(descriptor)
        #endif
    }

    /// `write(2)`: the bytes written, or −1 with errno set.
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #elseif canImport(Darwin)
        Darwin.write(descriptor, bytes, count)
        #endif
    }

    /// `read(2)`: the bytes read (0 at the end of the file), or −1 with errno set.
    package static func read(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, bytes, count)
        #elseif canImport(Darwin)
        Darwin.read(descriptor, bytes, count)
        #endif
    }

    /// `link(2)`: a second name `path` for the file `existing`; 0, or −1 with errno set.
    package static func link(_ existing: String, _ path: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.link(existing, path)
        #elseif canImport(Darwin)
        Darwin.link(existing, path)
        #endif
    }

    /// `rename(2)`: 0, or −1 with errno set.
    package static func rename(_ from: String, _ to: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.rename(from, to)
        #elseif canImport(Darwin)
        Darwin.rename(from, to)
        #endif
    }

    /// `unlink(2)`: 0, or −1 with errno set.
    package static func unlink(_ path: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.unlink(path)
        #elseif canImport(Darwin)
        Darwin.unlink(path)
        #endif
    }
}
