//! The acknowledgement file: how many commits the corpus has acknowledged as durable, kept beside
//! the database and written after each flush.
//!
//! sled recovers from a torn or truncated log by dropping its tail, which is right after a crash
//! but hides a damaged file: the database opens, consistent and short. The database also counts
//! its commits (tree `meta`, key `writes`, in the same atomic batch as each commit), so at open a
//! database holding fewer commits than this file says was acknowledged has lost records, and the
//! corpus says so instead of opening ([`crate::CorpusError::LostWrites`]).
//!
//! The file has two 16-byte slots, `[count: u64 BE][CRC-32 of count: u32 BE][b"TCFA"]`; commit
//! `n` writes slot `n % 2` and syncs, so a write torn by a crash leaves the other slot whole. The
//! count read is the larger of the valid slots.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{CorpusError, Result};

pub const FILE_NAME: &str = "tcfuzz-acked";
const MAGIC: &[u8; 4] = b"TCFA";
const SLOT: usize = 16;

pub struct AckFile {
    file: File,
    path: PathBuf,
}

fn slot(count: u64) -> [u8; SLOT] {
    let mut s = [0; SLOT];
    s[..8].copy_from_slice(&count.to_be_bytes());
    s[8..12].copy_from_slice(&crc32fast::hash(&count.to_be_bytes()).to_be_bytes());
    s[12..].copy_from_slice(MAGIC);
    s
}

fn read_slot(s: &[u8]) -> Option<u64> {
    let count: [u8; 8] = s[..8].try_into().ok()?;
    let crc = u32::from_be_bytes(s[8..12].try_into().ok()?);
    (&s[12..16] == MAGIC && crc32fast::hash(&count) == crc).then(|| u64::from_be_bytes(count))
}

impl AckFile {
    /// Creates the file with a count of 0 (and syncs it and its directory), for a new corpus.
    pub fn create(dir: &Path) -> Result<AckFile> {
        let path = dir.join(FILE_NAME);
        let mut file = OpenOptions::new().read(true).write(true).create_new(true).open(&path).map_err(CorpusError::io(&path))?;
        let mut both = [0; 2 * SLOT];
        both[..SLOT].copy_from_slice(&slot(0));
        both[SLOT..].copy_from_slice(&slot(0));
        file.write_all(&both).and_then(|()| file.sync_all()).map_err(CorpusError::io(&path))?;
        File::open(dir).and_then(|d| d.sync_all()).map_err(CorpusError::io(dir))?;
        Ok(AckFile { file, path })
    }

    /// Opens the file of an existing corpus and reads the acknowledged count.
    pub fn open(dir: &Path) -> Result<(AckFile, u64)> {
        let path = dir.join(FILE_NAME);
        let mut file = OpenOptions::new().read(true).write(true).open(&path).map_err(CorpusError::io(&path))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(CorpusError::io(&path))?;
        let count = bytes.chunks(SLOT).filter(|c| c.len() == SLOT).filter_map(read_slot).max();
        match count {
            Some(count) => Ok((AckFile { file, path }, count)),
            None => Err(CorpusError::NotACorpus {
                dir: dir.to_path_buf(),
                reason: format!(
                    "`{FILE_NAME}` is damaged ({} bytes, no valid count): the acknowledged commits cannot be checked",
                    bytes.len()
                ),
            }),
        }
    }

    /// Records that `count` commits are durable; returns once the file is synced.
    pub fn acknowledge(&mut self, count: u64) -> Result<()> {
        let offset = (count % 2) * SLOT as u64;
        let path = &self.path;
        self.file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| self.file.write_all(&slot(count)))
            .and_then(|()| self.file.sync_data())
            .map_err(CorpusError::io(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_larger_valid_slot_wins_and_a_torn_slot_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = AckFile::create(dir.path()).unwrap();
        f.acknowledge(1).unwrap();
        f.acknowledge(2).unwrap();
        f.acknowledge(3).unwrap();
        assert_eq!(AckFile::open(dir.path()).unwrap().1, 3);
        // Tear slot 1 (count 3): the other slot's 2 stands.
        let path = dir.path().join(FILE_NAME);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[SLOT + 3] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(AckFile::open(dir.path()).unwrap().1, 2);
    }

    #[test]
    fn a_file_with_no_valid_slot_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), b"garbage").unwrap();
        let err = AckFile::open(dir.path()).err().unwrap();
        assert!(err.to_string().contains("is damaged (7 bytes, no valid count)"), "{err}");
    }
}
