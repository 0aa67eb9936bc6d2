//! Tuners registered at run time (ids 160 and up), through
//! `blosc2_register_tuner`.
//!
//! A tuner chooses compression parameters chunk by chunk in the reference.
//! This library compresses with the parameters it is given (a context's
//! `tuner_id` is kept but no tuner is called), so the registry only keeps
//! the reference's rules of which registrations succeed.

use crate::error::{Error, Result};
use std::sync::Mutex;

/// First id users may register a tuner under.
pub const USER_TUNERS_START: i32 = 160;
/// How many tuners may be registered.
pub const MAX_TUNERS: usize = 255;

static REGISTRY: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());

/// Register a tuner under the reference's rules: ids below
/// [`USER_TUNERS_START`] are refused ([`Error::Failure`]); registering an id
/// again succeeds when the name is the same and fails with
/// [`Error::Failure`] otherwise; past [`MAX_TUNERS`] registrations a new id
/// is refused with [`Error::CodecSupport`].
pub fn register(id: i32, name: &str) -> Result<()> {
    if id < USER_TUNERS_START {
        return Err(Error::Failure);
    }
    let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, known)) = reg.iter().find(|(i, _)| *i == id) {
        return if known == name {
            Ok(())
        } else {
            Err(Error::Failure)
        };
    }
    if reg.len() >= MAX_TUNERS {
        return Err(Error::CodecSupport);
    }
    reg.push((id, name.to_owned()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_rules() {
        assert_eq!(register(10, "low"), Err(Error::Failure));
        assert_eq!(register(201, "tuner-a"), Ok(()));
        // The same id again: fine with the same name, refused with another.
        assert_eq!(register(201, "tuner-a"), Ok(()));
        assert_eq!(register(201, "tuner-b"), Err(Error::Failure));
    }
}
