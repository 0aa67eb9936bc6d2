//! Filters registered at run time (ids 32..=255), e.g. through `blosc2_register_filter`.

use crate::error::{Error, Result};
use once_cell::sync::Lazy;
use std::sync::RwLock;

pub use crate::plugin::{FilterPlugin, RegisteredFilter};

// Starts with the filters the reference registers at start (bytedelta, ...).
static REGISTRY: Lazy<RwLock<Vec<RegisteredFilter>>> =
    Lazy::new(|| RwLock::new(crate::filter::plugins::builtin_filters()));

/// Last id of the built-in filters.
pub const DEFINED_FILTERS_STOP: u8 = 31;

/// Register a filter (ids up to 31 are reserved for built-ins).
pub fn register(f: RegisteredFilter) -> Result<()> {
    if f.id <= DEFINED_FILTERS_STOP {
        return Err(Error::Failure);
    }
    let mut reg = REGISTRY.write().map_err(|_| Error::Failure)?;
    if reg.iter().any(|g| g.id == f.id) {
        return Ok(());
    }
    reg.push(f);
    Ok(())
}

/// Look up a registered filter.
pub fn find(id: u8) -> Option<RegisteredFilter> {
    REGISTRY.read().ok()?.iter().find(|f| f.id == id).cloned()
}
