//! Metalayers (fixed size, uncompressed) and variable-length metalayers
//! (compressed) of a super-chunk.

use super::*;

impl SuperChunk {
    /// Index of metalayer `name`.
    pub fn meta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.metalayers
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    /// Content of metalayer `name`.
    pub fn meta_get(&self, name: &str) -> Result<&[u8]> {
        Ok(&self.metalayers[self.meta_exists(name)?].content)
    }

    /// Add a metalayer (frames only before any chunk data); returns its index.
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.exclusive(|s| s.meta_add_here(name, content))
    }

    pub(super) fn meta_add_here(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        check_name(name)?;
        if self.meta_exists(name).is_ok() || self.metalayers.len() >= MAX_METALAYERS {
            return Err(Error::InvalidParam);
        }
        if self.frame().is_some() && self.cbytes > 0 {
            return Err(Error::InvalidParam);
        }
        self.metalayers.push(Metalayer {
            name: name.to_string(),
            content: content.to_vec(),
        });
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.metalayers.pop();
            return Err(e);
        }
        Ok(self.metalayers.len() - 1)
    }

    /// Overwrite the start of metalayer `name` (its length does not change; a
    /// longer content is refused).
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.exclusive(|s| s.meta_update_here(name, content))
    }

    pub(super) fn meta_update_here(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let i = self.meta_exists(name)?;
        if content.len() > self.metalayers[i].content.len() {
            return Err(Error::InvalidParam);
        }
        let old = self.metalayers[i].content.clone();
        self.metalayers[i].content[..content.len()].copy_from_slice(content);
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.metalayers[i].content = old;
            return Err(e);
        }
        Ok(i)
    }

    /// Index of vlmetalayer `name`.
    pub fn vlmeta_exists(&self, name: &str) -> Result<usize> {
        check_name(name)?;
        self.vlmetalayers
            .iter()
            .position(|m| m.name == name)
            .ok_or(Error::NotFound)
    }

    pub(super) fn vlmeta_compress(content: &[u8], cparams: Option<&CParams>) -> Result<Vec<u8>> {
        let cp = cparams.cloned().unwrap_or_default();
        chunk::compress(&cp, content)
    }

    /// Add a vlmetalayer compressed with `cparams` (defaults when `None`).
    pub fn vlmeta_add(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        self.exclusive(|s| s.vlmeta_add_here(name, content, cparams))
    }

    pub(super) fn vlmeta_add_here(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        check_name(name)?;
        if self.vlmeta_exists(name).is_ok() {
            return Err(Error::InvalidParam);
        }
        let max = if self.frame().is_some() {
            MAX_METALAYERS
        } else {
            MAX_VLMETALAYERS
        };
        if self.vlmetalayers.len() >= max {
            return Err(Error::Failure);
        }
        let c = Self::vlmeta_compress(content, cparams)?;
        self.vlmetalayers.push(Metalayer {
            name: name.to_string(),
            content: c,
        });
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.vlmetalayers.pop();
            return Err(e);
        }
        Ok(self.vlmetalayers.len() - 1)
    }

    /// Replace the content of vlmetalayer `name`.
    pub fn vlmeta_update(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        self.exclusive(|s| s.vlmeta_update_here(name, content, cparams))
    }

    pub(super) fn vlmeta_update_here(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: Option<&CParams>,
    ) -> Result<usize> {
        let i = self.vlmeta_exists(name)?;
        let c = Self::vlmeta_compress(content, cparams)?;
        let old = std::mem::replace(&mut self.vlmetalayers[i].content, c);
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.vlmetalayers[i].content = old;
            return Err(e);
        }
        Ok(i)
    }

    /// Decompressed content of vlmetalayer `name`.
    pub fn vlmeta_get(&self, name: &str) -> Result<(usize, Vec<u8>)> {
        let i = self.vlmeta_exists(name)?;
        let c = &self.vlmetalayers[i].content;
        let (nb, cb, _) = chunk_info(c).map_err(|_| Error::Data)?;
        if cb != c.len() {
            return Err(Error::Data);
        }
        // A vlmetalayer is held in the trailer: its compressed bytes bound
        // what it may claim (docs/limits.md).
        let mut out = crate::alloc::zeroed_within(nb as usize, c.len())?;
        let got = chunk::decompress_into(&self.dparams, c, &mut out)?;
        if got != nb as usize {
            return Err(Error::ReadBuffer);
        }
        Ok((i, out))
    }

    /// Remove vlmetalayer `name`; returns how many remain.
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        self.exclusive(|s| s.vlmeta_delete_here(name))
    }

    pub(super) fn vlmeta_delete_here(&mut self, name: &str) -> Result<usize> {
        let i = self.vlmeta_exists(name)?;
        let old = self.vlmetalayers.remove(i);
        if let Err(e) = self.commit(DataEdit::None, None, None) {
            self.vlmetalayers.insert(i, old);
            return Err(e);
        }
        Ok(self.vlmetalayers.len())
    }
}
