//! Informational lines on stderr, printed while the environment variable
//! `BLOSC_INFO` is set, as the reference's `BLOSC_INFO` macro prints them
//! (python-blosc2 checks the memory-mapping one). The variable is read at
//! each message, as the reference reads it, so a program may set it late.

/// Whether `BLOSC_INFO` is set now.
pub fn enabled() -> bool {
    std::env::var_os("BLOSC_INFO").is_some()
}

/// Print `[INFO] - <message>` on stderr when `BLOSC_INFO` is set.
macro_rules! info {
    ($($arg:tt)*) => {
        if $crate::info::enabled() {
            eprintln!("[INFO] - {}", format_args!($($arg)*));
        }
    };
}
pub(crate) use info;
