//! A super-chunk context for the engine's plugins that answers from a
//! test's global (typesize, "b2nd" metalayer), which the test sets before
//! each case.

// Not every test binary that includes `common` uses it.
#![allow(dead_code)]

use blosc2::plugin::{SchunkContext, SchunkRef};
use std::sync::{Arc, RwLock};

/// The typesize and "b2nd" metalayer (none when empty) a test hands out.
pub type Globals = RwLock<(i32, Vec<u8>)>;

/// A context reading `Globals`.
struct FromGlobals(&'static Globals);

impl SchunkContext for FromGlobals {
    fn typesize(&self) -> Option<i32> {
        Some(self.0.read().unwrap_or_else(|e| e.into_inner()).0)
    }
    fn metalayer(&self, name: &str) -> Option<Vec<u8>> {
        let s = self.0.read().unwrap_or_else(|e| e.into_inner());
        (name == "b2nd" && !s.1.is_empty()).then(|| s.1.clone())
    }
}

/// A super-chunk context for our parameters, answering from `globals`.
pub fn schunk_from(globals: &'static Globals) -> Option<SchunkRef> {
    Some(SchunkRef(Arc::new(FromGlobals(globals))))
}
