//! The sled 0.34 adapter. sled fsyncs only every `flush_every_ms` on its own and has open reports
//! of damage after abrupt stops, so the corpus flushes explicitly after every commit
//! ([`Store::flush`]) and keeps its own count of acknowledged writes beside the database
//! (`crate::acked`), which tells a database that lost writes from one that never had them.

use std::path::Path;

use super::{Entries, Entry, Store, StoreError, Tree, Write};

/// A sled database with one sled tree per [`Tree`].
pub struct SledStore {
    db: sled::Db,
    trees: Vec<sled::Tree>,
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
    pub fn open(dir: &Path) -> Result<SledStore, StoreError> {
        let db = sled::Config::new().path(dir).open().map_err(engine)?;
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
