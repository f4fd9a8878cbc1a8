//! The sled 0.34 adapter. sled fsyncs only every `flush_every_ms` on its own and has open reports
//! of damage after abrupt stops, so the corpus flushes explicitly after every commit
//! ([`Store::flush`]) and keeps its own count of acknowledged writes beside the database
//! (`crate::acked`), which tells a database that lost writes from one that never had them.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{Entries, Entry, Store, StoreError, Tree, Write};

/// A sled database with one sled tree per [`Tree`].
pub struct SledStore {
    db: sled::Db,
    trees: Vec<sled::Tree>,
}

/// How long [`SledStore::open`] waits for a directory lock another handle holds.
const LOCK_WAIT: Duration = Duration::from_secs(2);

/// Whether `e` is sled failing to lock the database directory (sled 0.34 reports it only as an
/// I/O error with this message).
fn is_lock_taken(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(io) if io.to_string().contains("could not acquire lock"))
}

fn engine(e: sled::Error) -> StoreError {
    StoreError(format!("sled: {e}"))
}

fn unabortable(e: sled::transaction::TransactionError<()>) -> StoreError {
    match e {
        sled::transaction::TransactionError::Storage(e) => engine(e),
        sled::transaction::TransactionError::Abort(()) => StoreError("sled: transaction aborted".into()),
    }
}

impl SledStore {
    /// Opens (or creates) the database in `dir`. Periodic background flushing stays on; it only
    /// adds durability between our explicit flushes.
    /// Opens (or creates) the database in `dir`. sled locks the directory; a handle this
    /// process has just dropped may still hold the lock for a moment (sled's flusher thread
    /// releases it after the drop), so a lock that is taken is tried again for up to
    /// [`LOCK_WAIT`] before the error, which then says the corpus is in use.
    pub fn open(dir: &Path) -> Result<SledStore, StoreError> {
        let started = Instant::now();
        let db = loop {
            match sled::Config::new().path(dir).open() {
                Ok(db) => break db,
                Err(e) if is_lock_taken(&e) && started.elapsed() < LOCK_WAIT => std::thread::sleep(Duration::from_millis(20)),
                Err(e) if is_lock_taken(&e) => {
                    return Err(StoreError(format!("sled: {e} (is another process using this corpus?)")));
                }
                Err(e) => return Err(engine(e)),
            }
        };
        let trees = Tree::ALL.iter().map(|t| db.open_tree(t.name())).collect::<Result<Vec<_>, _>>().map_err(engine)?;
        Ok(SledStore { db, trees })
    }

    fn tree(&self, t: Tree) -> &sled::Tree {
        let i = Tree::ALL.iter().position(|&x| x == t).expect("[tcfuzz internal bug] a tree missing from Tree::ALL");
        &self.trees[i]
    }
}

impl Store for SledStore {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.tree(tree).get(key).map_err(engine)?.map(|v| v.to_vec()))
    }

    fn range<'a>(&'a self, tree: Tree, start: &[u8], end: Option<&[u8]>) -> Entries<'a> {
        let t = self.tree(tree);
        let iter = match end {
            Some(end) => t.range(start.to_vec()..end.to_vec()),
            None => t.range(start.to_vec()..),
        };
        Box::new(iter.map(|r| r.map(|(k, v)| (k.to_vec(), v.to_vec())).map_err(engine)))
    }

    fn last(&self, tree: Tree) -> Result<Option<Entry>, StoreError> {
        Ok(self.tree(tree).last().map_err(engine)?.map(|(k, v)| (k.to_vec(), v.to_vec())))
    }

    fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        use sled::transaction::Transactional;
        // Only the trees written take part: a transaction over all ten costs more.
        let mut touched: Vec<Tree> = writes.iter().map(|w| w.tree).collect();
        touched.sort();
        touched.dedup();
        let trees: Vec<&sled::Tree> = touched.iter().map(|&t| self.tree(t)).collect();
        trees
            .as_slice()
            .transaction(|views| {
                for w in writes {
                    let i = touched.binary_search(&w.tree).expect("[tcfuzz internal bug] a written tree not in the transaction");
                    match &w.value {
                        Some(v) => views[i].insert(w.key.as_slice(), v.as_slice())?,
                        None => views[i].remove(w.key.as_slice())?,
                    };
                }
                Ok(())
            })
            .map_err(unabortable)
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.db.flush().map(|_| ()).map_err(engine)
    }

    fn size_on_disk(&self) -> Result<u64, StoreError> {
        self.db.size_on_disk().map_err(engine)
    }
}
