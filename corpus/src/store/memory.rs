//! An engine that keeps everything in memory: for tests of the layers above the store (the
//! coordinator's, say) that need no disk. Nothing survives the process; `flush` is a no-op.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::RwLock;

use super::{Entries, Store, StoreError, Tree, Write};

/// Every entry of every tree, by tree then key.
type Trees = BTreeMap<(Tree, Vec<u8>), Vec<u8>>;

#[derive(Default)]
pub struct MemoryStore {
    trees: RwLock<Trees>,
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
}

fn poisoned() -> StoreError {
    StoreError("memory store: a writer panicked while holding the lock".into())
}

impl Store for MemoryStore {
    fn get(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let trees = self.trees.read().map_err(|_| poisoned())?;
        Ok(trees.get(&(tree, key.to_vec())).cloned())
    }

    fn range<'a>(&'a self, tree: Tree, start: &[u8], end: Option<&[u8]>) -> Entries<'a> {
        // A snapshot: the lock is not held while the caller iterates.
        let trees = match self.trees.read() {
            Ok(t) => t,
            Err(_) => return Box::new(std::iter::once(Err(poisoned()))),
        };
        let lo = Bound::Included((tree, start.to_vec()));
        let hi = end.map_or(Bound::Unbounded, |end| Bound::Excluded((tree, end.to_vec())));
        let entries: Vec<_> =
            trees.range((lo, hi)).take_while(|((t, _), _)| *t == tree).map(|((_, k), v)| Ok((k.clone(), v.clone()))).collect();
        Box::new(entries.into_iter())
    }

    fn apply(&self, writes: &[Write]) -> Result<(), StoreError> {
        let mut trees = self.trees.write().map_err(|_| poisoned())?;
        for w in writes {
            let key = (w.tree, w.key.clone());
            match &w.value {
                Some(v) => trees.insert(key, v.clone()),
                None => trees.remove(&key),
            };
        }
        Ok(())
    }

    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn size_on_disk(&self) -> Result<u64, StoreError> {
        Ok(0)
    }
}
