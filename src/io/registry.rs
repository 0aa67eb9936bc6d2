//! The registry of I/O backends by id (`blosc2_register_io_cb`,
//! `blosc2_get_io_cb`): the built-in backends hold the ids below
//! [`FIRST_USER_ID`], users register theirs from it on.  Registering an id
//! again is accepted only for the same backend; an entry, once in, stays at
//! the same address for the life of the registry, so a reference handed out
//! to C stays valid.

use crate::error::{Error, Result};

/// `BLOSC2_IO_REGISTERED`: the first id users may register.
pub const FIRST_USER_ID: u8 = 160;

/// Entries of type `T` by id.
#[derive(Debug)]
pub struct Registry<T> {
    entries: Vec<(u8, Box<T>)>,
}

impl<T> Registry<T> {
    /// A registry holding the built-in `entries`, whatever their ids.
    pub fn with_builtins(entries: impl IntoIterator<Item = (u8, T)>) -> Registry<T> {
        Registry {
            entries: entries
                .into_iter()
                .map(|(id, t)| (id, Box::new(t)))
                .collect(),
        }
    }

    /// Add `entry` under `id`: an id below [`FIRST_USER_ID`] is
    /// `PluginIo`; an id already there is accepted (and nothing changes)
    /// when `same` says the old entry and the new one are the same backend,
    /// `PluginIo` otherwise; a registry holding 255 entries is full
    /// (`PluginIo`).
    pub fn register(&mut self, id: u8, entry: T, same: impl FnOnce(&T, &T) -> bool) -> Result<()> {
        if id < FIRST_USER_ID {
            return Err(Error::PluginIo);
        }
        if let Some(old) = self.get(id) {
            return if same(old, &entry) {
                Ok(())
            } else {
                Err(Error::PluginIo)
            };
        }
        if self.entries.len() >= u8::MAX as usize {
            return Err(Error::PluginIo);
        }
        self.entries.push((id, Box::new(entry)));
        Ok(())
    }

    /// The entry registered under `id`.
    pub fn get(&self, id: u8) -> Option<&T> {
        self.entries.iter().find(|e| e.0 == id).map(|e| &*e.1)
    }

    /// The entry registered under `id`, to change in place.
    pub fn get_mut(&mut self, id: u8) -> Option<&mut T> {
        self.entries
            .iter_mut()
            .find(|e| e.0 == id)
            .map(|e| &mut *e.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_register_from_160_and_again_only_the_same() {
        let mut r = Registry::with_builtins([(0, "filesystem"), (1, "filesystem_mmap")]);
        let same = |a: &&str, b: &&str| a == b;
        assert_eq!(r.register(1, "mine", same), Err(Error::PluginIo));
        assert_eq!(r.register(159, "mine", same), Err(Error::PluginIo));
        assert_eq!(r.register(160, "mine", same), Ok(()));
        assert_eq!(r.register(160, "mine", same), Ok(()));
        assert_eq!(r.register(160, "other", same), Err(Error::PluginIo));
        assert_eq!(r.get(160), Some(&"mine"));
        let at = r.get(160).unwrap() as *const &str;
        for id in 161..=255 {
            assert_eq!(r.register(id, "more", same), Ok(()));
        }
        assert_eq!(r.get(160).unwrap() as *const &str, at);
        assert_eq!(r.get(0), Some(&"filesystem"));
        assert_eq!(r.get(2), None);
    }

    #[test]
    fn a_full_registry_refuses_new_ids() {
        let mut r = Registry::with_builtins((0..254u8).map(|i| (i, ())));
        assert_eq!(r.register(255, (), |_, _| true), Ok(()));
        let mut full = Registry::with_builtins((0..255u8).map(|i| (i / 2, ())));
        assert_eq!(full.register(255, (), |_, _| true), Err(Error::PluginIo));
    }
}
