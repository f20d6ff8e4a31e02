#if BOOKS_TSAN
import BooksPlatform

/// ThreadSanitizer builds: `Mutex` in this module is a lock the sanitizer models (see `TSanMutex`).
typealias Mutex<Value> = TSanMutex<Value>
#endif
