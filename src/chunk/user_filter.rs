//! Filters registered at run time (ids 32..=255), e.g. through `blosc2_register_filter`.

use crate::codec::CallInfo;
use crate::error::{Error, Result};
use once_cell::sync::Lazy;
use std::sync::{Arc, RwLock};

/// A user filter.
pub trait FilterPlugin: Send + Sync {
    /// Apply the filter: `dest` gets `src.len()` bytes. Zero means success.
    fn forward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, id: u8) -> i32;
    /// Undo the filter. Zero means success.
    fn backward(&self, src: &[u8], dest: &mut [u8], info: &CallInfo, id: u8) -> i32;
}

/// One registered filter.
#[derive(Clone)]
pub struct RegisteredFilter {
    /// Id.
    pub id: u8,
    /// Name.
    pub name: String,
    /// Version.
    pub version: u8,
    /// Implementation.
    pub plugin: Arc<dyn FilterPlugin>,
}

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
