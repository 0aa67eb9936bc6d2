//! Filters registered at run time (ids 160..=255), e.g. through `blosc2_register_filter`.

use crate::error::{Error, Result};
use once_cell::sync::Lazy;
use std::sync::RwLock;

pub use crate::plugin::{FilterPlugin, RegisteredFilter};

// Starts with the filters the reference registers at start (bytedelta, ...).
static REGISTRY: Lazy<RwLock<Vec<RegisteredFilter>>> =
    Lazy::new(|| RwLock::new(crate::filter::plugins::builtin_filters()));

/// Last id of the built-in filters.
pub const DEFINED_FILTERS_STOP: u8 = 31;
/// First id users may register a filter under.
pub const USER_FILTERS_START: u8 = 160;

/// Register a filter under the reference's rules: ids below
/// [`USER_FILTERS_START`] are Blosc's and refused ([`Error::Failure`]);
/// registering an id again succeeds and keeps the first filter when the
/// name is the same, and fails with [`Error::Failure`] otherwise.
pub fn register(f: RegisteredFilter) -> Result<()> {
    if f.id < USER_FILTERS_START {
        return Err(Error::Failure);
    }
    let mut reg = REGISTRY.write().map_err(|_| Error::CodecSupport)?;
    if let Some(g) = reg.iter().find(|g| g.id == f.id) {
        return if g.name == f.name {
            Ok(())
        } else {
            Err(Error::Failure)
        };
    }
    reg.push(f);
    Ok(())
}

/// Look up a registered filter.
pub fn find(id: u8) -> Option<RegisteredFilter> {
    REGISTRY.read().ok()?.iter().find(|f| f.id == id).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::CallInfo;
    use std::sync::Arc;

    /// Copies its input.
    struct Identity;
    impl FilterPlugin for Identity {
        fn forward(&self, src: &[u8], dest: &mut [u8], _: &CallInfo, _: u8) -> i32 {
            dest[..src.len()].copy_from_slice(src);
            0
        }
        fn backward(&self, src: &[u8], dest: &mut [u8], _: &CallInfo, _: u8) -> i32 {
            dest[..src.len()].copy_from_slice(src);
            0
        }
    }

    fn filter(id: u8, name: &str) -> RegisteredFilter {
        RegisteredFilter {
            id,
            name: name.into(),
            version: 1,
            plugin: Arc::new(Identity),
        }
    }

    #[test]
    fn registration_rules() {
        for id in [0, DEFINED_FILTERS_STOP, 32, USER_FILTERS_START - 1] {
            assert_eq!(register(filter(id, "tf_low")).err(), Some(Error::Failure));
        }
        register(filter(251, "tf_copy")).unwrap();
        assert_eq!(find(251).map(|f| f.name), Some("tf_copy".into()));
        register(filter(251, "tf_copy")).unwrap();
        assert_eq!(
            register(filter(251, "tf_other")).err(),
            Some(Error::Failure)
        );
        assert_eq!(find(251).map(|f| f.name), Some("tf_copy".into()));
    }
}
