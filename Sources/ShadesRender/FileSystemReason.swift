#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesPlatform

/// Why a file-system call failed, in a few words for a one-line error: the POSIX reason ("No such file or
/// directory") where Foundation's error carries one, else the error's own description.
package func fileSystemReason(_ error: any Error) -> String {
    var posix = error as? POSIXError
    if let cocoa = error as? CocoaError { posix = cocoa.underlying as? POSIXError }
    guard let posix else { return "\(error)" }
    return String(cString: strerror(posix.code.rawValue))
}
