//! The binary encoding of stored values: hand-written, compact, and strict.
//!
//! Every value is `[format version: u8][payload][CRC-32 of version and payload: u32 BE]`. The
//! version byte comes first so that a reader can tell a format it does not know from a damaged
//! value (Garage's rule: every stored value starts with a version marker); the checksum catches
//! damage that would still decode. Integers are big-endian, strings and lists carry a `u32`
//! length, and a decoder never allocates more than the bytes it was given could hold, so a
//! damaged length gives an error, never a huge allocation or a panic.

/// Why a value did not decode. The corpus adds the tree and key ([`crate::CorpusError`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The value's version byte names a format this build does not read.
    UnknownVersion { found: u8, known: u8 },
    /// Anything else: too short, checksum mismatch, bad UTF-8, bad tag, trailing bytes.
    Corrupt(String),
}

/// Builds one value.
pub struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    pub fn new(version: u8) -> Encoder {
        Encoder { buf: vec![version] }
    }

    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }

    pub fn str(&mut self, s: &str) -> &mut Self {
        self.len(s.len());
        self.buf.extend_from_slice(s.as_bytes());
        self
    }

    pub fn opt_str(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            None => self.u8(0),
            Some(s) => self.u8(1).str(s),
        }
    }

    pub fn strs(&mut self, items: &[String]) -> &mut Self {
        self.len(items.len());
        for s in items {
            self.str(s);
        }
        self
    }

    pub fn u64s(&mut self, items: &[u64]) -> &mut Self {
        self.len(items.len());
        for &v in items {
            self.u64(v);
        }
        self
    }

    /// A length prefix. Stored values are far below 4 GiB (programs are litmus texts); a longer
    /// one would be an internal bug, not input.
    fn len(&mut self, n: usize) {
        let n = u32::try_from(n).expect("[tcfuzz internal bug] a stored string or list is longer than 4 GiB");
        self.u32(n);
    }

    /// The finished value, with its checksum.
    pub fn finish(&mut self) -> Vec<u8> {
        let crc = crc32fast::hash(&self.buf);
        let mut out = std::mem::take(&mut self.buf);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }
}

/// Reads one value. [`Decoder::open`] checks the checksum and version; [`Decoder::end`] that
/// nothing is left over.
pub struct Decoder<'a> {
    rest: &'a [u8],
}

impl<'a> Decoder<'a> {
    /// Checks the checksum and that the version is `known`, and returns a decoder over the payload.
    pub fn open(value: &'a [u8], known: u8) -> Result<Decoder<'a>, DecodeError> {
        if value.len() < 5 {
            return Err(DecodeError::Corrupt(format!("value is {} bytes, shorter than any record (5)", value.len())));
        }
        let (body, crc) = value.split_at(value.len() - 4);
        let stored = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
        if crc32fast::hash(body) != stored {
            return Err(DecodeError::Corrupt("checksum mismatch (the value was damaged)".into()));
        }
        if body[0] != known {
            return Err(DecodeError::UnknownVersion { found: body[0], known });
        }
        Ok(Decoder { rest: &body[1..] })
    }

    /// [`Decoder::open`] for a format that still reads its versions `oldest..=known`: the decoder
    /// and the value's version (an unknown one is reported against `known`).
    pub fn open_versions(value: &'a [u8], oldest: u8, known: u8) -> Result<(Decoder<'a>, u8), DecodeError> {
        match Decoder::open(value, known) {
            Err(DecodeError::UnknownVersion { found, .. }) if (oldest..known).contains(&found) => Ok((Decoder::open(value, found)?, found)),
            opened => Ok((opened?, known)),
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        if self.rest.len() < n {
            return Err(DecodeError::Corrupt(format!("truncated: {what} needs {n} bytes, {} left", self.rest.len())));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, DecodeError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, DecodeError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, DecodeError> {
        let b = self.take(8, what)?;
        let mut a = [0; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    pub fn bool(&mut self, what: &str) -> Result<bool, DecodeError> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            t => Err(DecodeError::Corrupt(format!("{what}: {t} is not a boolean"))),
        }
    }

    /// A length that must fit in what is left (each item taking at least `min_item` bytes).
    fn len(&mut self, what: &str, min_item: usize) -> Result<usize, DecodeError> {
        let n = self.u32(what)? as usize;
        if n.saturating_mul(min_item) > self.rest.len() {
            return Err(DecodeError::Corrupt(format!("truncated: {what} claims {n} items, {} bytes left", self.rest.len())));
        }
        Ok(n)
    }

    pub fn str(&mut self, what: &str) -> Result<String, DecodeError> {
        let n = self.len(what, 1)?;
        let bytes = self.take(n, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError::Corrupt(format!("{what} is not UTF-8")))
    }

    pub fn opt_str(&mut self, what: &str) -> Result<Option<String>, DecodeError> {
        match self.u8(what)? {
            0 => Ok(None),
            1 => self.str(what).map(Some),
            t => Err(DecodeError::Corrupt(format!("{what}: bad option tag {t}"))),
        }
    }

    pub fn strs(&mut self, what: &str) -> Result<Vec<String>, DecodeError> {
        let n = self.len(what, 4)?;
        (0..n).map(|_| self.str(what)).collect()
    }

    pub fn u64s(&mut self, what: &str) -> Result<Vec<u64>, DecodeError> {
        let n = self.len(what, 8)?;
        (0..n).map(|_| self.u64(what)).collect()
    }

    /// Fails if bytes are left over.
    pub fn end(self) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::Corrupt(format!("{} unexpected bytes after the record", self.rest.len())))
        }
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every machine and in every build (the standard
/// library's is not promised to be), for keys stored on disk.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        Encoder::new(3)
            .u8(7)
            .u32(1)
            .u64(u64::MAX)
            .bool(true)
            .str("héllo")
            .opt_str(None)
            .opt_str(Some("x"))
            .strs(&["a".into()])
            .u64s(&[5, 6])
            .finish()
    }

    #[test]
    fn round_trips_every_primitive() {
        let v = sample();
        let mut d = Decoder::open(&v, 3).unwrap();
        assert_eq!(d.u8("a").unwrap(), 7);
        assert_eq!(d.u32("b").unwrap(), 1);
        assert_eq!(d.u64("c").unwrap(), u64::MAX);
        assert!(d.bool("d").unwrap());
        assert_eq!(d.str("e").unwrap(), "héllo");
        assert_eq!(d.opt_str("f").unwrap(), None);
        assert_eq!(d.opt_str("g").unwrap().as_deref(), Some("x"));
        assert_eq!(d.strs("h").unwrap(), vec!["a".to_string()]);
        assert_eq!(d.u64s("i").unwrap(), vec![5, 6]);
        d.end().unwrap();
    }

    #[test]
    fn integers_are_big_endian_after_the_version_byte() {
        let v = Encoder::new(1).u32(0x0102_0304).finish();
        assert_eq!(&v[..5], &[1, 1, 2, 3, 4]);
    }

    #[test]
    fn unknown_version_is_told_apart_from_damage() {
        let v = sample();
        assert_eq!(Decoder::open(&v, 4).err(), Some(DecodeError::UnknownVersion { found: 3, known: 4 }));
        // A format that still reads version 3 opens it as version 3; one reading 4 and later does not.
        assert_eq!(Decoder::open_versions(&v, 2, 4).map(|(_, version)| version), Ok(3));
        assert_eq!(Decoder::open_versions(&v, 4, 5).err(), Some(DecodeError::UnknownVersion { found: 3, known: 5 }));
        assert_eq!(Decoder::open_versions(&v, 1, 2).err(), Some(DecodeError::UnknownVersion { found: 3, known: 2 }));
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_an_error_not_a_panic() {
        let v = sample();
        for n in 0..v.len() {
            assert!(Decoder::open(&v[..n], 3).is_err(), "prefix of {n} bytes decoded");
        }
        for i in 0..v.len() {
            let mut w = v.clone();
            w[i] ^= 0x40;
            assert!(Decoder::open(&w, 3).is_err(), "flipping byte {i} went unnoticed");
        }
    }

    #[test]
    fn a_huge_length_is_an_error_without_allocating() {
        let v = Encoder::new(1).u32(u32::MAX).finish();
        let mut d = Decoder::open(&v, 1).unwrap();
        assert!(matches!(d.strs("list"), Err(DecodeError::Corrupt(m)) if m.contains("claims")));
    }

    #[test]
    fn stable_hash_is_pinned() {
        // FNV-1a test vectors: a change here would orphan every stored seed index.
        assert_eq!(stable_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(stable_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
