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

/// Whether a context may be made with the filter pipeline `filters`: ids
/// 5..=31 are reserved for Blosc's own filters and 37..=159 for global
/// plugins, none of which this library holds under those ids (the
/// reference refuses both when it makes a context).
pub fn pipeline_usable(filters: &[u8]) -> bool {
    filters
        .iter()
        .all(|f| !(5..=DEFINED_FILTERS_STOP).contains(f) && !(37..USER_FILTERS_START).contains(f))
}

/// Look up a registered filter.
pub fn find(id: u8) -> Option<RegisteredFilter> {
    REGISTRY.read().ok()?.iter().find(|f| f.id == id).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelines_may_not_name_reserved_ids() {
        assert!(pipeline_usable(&[0, 1, 2, 3, 4, 32]));
        assert!(pipeline_usable(&[35, 36, 160, 255, 0, 0]));
        for bad in [5, 31, 37, 100, 159] {
            assert!(!pipeline_usable(&[0, 0, 0, 0, 0, bad]), "{bad}");
        }
    }
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
