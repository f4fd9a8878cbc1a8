//! The storage test suite: what the corpus relies on from an engine, run against every engine
//! (Garage's `src/db/test.rs`). A new adapter adds one line at the bottom.

use super::{MemoryStore, SledStore, Store, Tree, Write, prefix_end};

fn put(tree: Tree, key: &[u8], value: &[u8]) -> Write {
    Write { tree, key: key.to_vec(), value: Some(value.to_vec()) }
}

fn keys(store: &dyn Store, tree: Tree, start: &[u8], end: Option<&[u8]>) -> Vec<Vec<u8>> {
    store.range(tree, start, end).map(|r| r.expect("range entry").0).collect()
}

fn suite(store: &dyn Store) {
    // Empty to begin with.
    assert_eq!(store.get(Tree::Jobs, b"a").unwrap(), None);
    assert!(keys(store, Tree::Jobs, b"", None).is_empty());

    // A batch over several trees lands whole; trees do not share keys.
    store.apply(&[put(Tree::Jobs, &[0, 2], b"two"), put(Tree::Jobs, &[0, 1], b"one"), put(Tree::JobQueue, &[0, 1], b"q")]).unwrap();
    assert_eq!(store.get(Tree::Jobs, &[0, 1]).unwrap().as_deref(), Some(&b"one"[..]));
    assert_eq!(store.get(Tree::JobQueue, &[0, 1]).unwrap().as_deref(), Some(&b"q"[..]));
    assert_eq!(store.get(Tree::JobQueue, &[0, 2]).unwrap(), None);
    assert_eq!(store.get(Tree::Meta, &[0, 1]).unwrap(), None);

    // Keys come back in byte order (big-endian numbers sort numerically).
    let ids = [300u64, 2, 70_000, 1 << 40];
    let writes: Vec<Write> = ids.iter().map(|i| put(Tree::Seeds, &i.to_be_bytes(), b"s")).collect();
    store.apply(&writes).unwrap();
    let got: Vec<u64> = keys(store, Tree::Seeds, b"", None).iter().map(|k| u64::from_be_bytes(k[..8].try_into().unwrap())).collect();
    assert_eq!(got, vec![2, 300, 70_000, 1 << 40]);

    assert_eq!(store.last(Tree::Seeds).unwrap().map(|(k, _)| k), Some((1u64 << 40).to_be_bytes().to_vec()));
    assert_eq!(store.last(Tree::Campaigns).unwrap(), None);

    // Ranges: start inclusive, end exclusive, prefixes.
    assert_eq!(keys(store, Tree::Seeds, &300u64.to_be_bytes(), Some(&(1u64 << 40).to_be_bytes())).len(), 2);
    store
        .apply(&[
            put(Tree::LeaseDeadlines, b"a\x00x", b""),
            put(Tree::LeaseDeadlines, b"a\x00y", b""),
            put(Tree::LeaseDeadlines, b"a\x01", b""),
        ])
        .unwrap();
    let end = prefix_end(b"a\x00").unwrap();
    assert_eq!(keys(store, Tree::LeaseDeadlines, b"a\x00", Some(&end)), vec![b"a\x00x".to_vec(), b"a\x00y".to_vec()]);

    // Overwrite and remove, in one batch, in order: the last write of a key wins.
    store
        .apply(&[
            put(Tree::Jobs, &[0, 1], b"uno"),
            Write { tree: Tree::Jobs, key: vec![0, 2], value: None },
            put(Tree::Jobs, &[0, 3], b"x"),
            Write { tree: Tree::Jobs, key: vec![0, 3], value: None },
        ])
        .unwrap();
    assert_eq!(store.get(Tree::Jobs, &[0, 1]).unwrap().as_deref(), Some(&b"uno"[..]));
    assert_eq!(keys(store, Tree::Jobs, b"", None), vec![vec![0, 1]]);

    // Empty keys and values, and large values, are kept as they are.
    let big = vec![0xa5; 1 << 20];
    store.apply(&[put(Tree::Coverage, b"", b""), put(Tree::Coverage, b"big", &big)]).unwrap();
    assert_eq!(store.get(Tree::Coverage, b"").unwrap().as_deref(), Some(&b""[..]));
    assert_eq!(store.get(Tree::Coverage, b"big").unwrap(), Some(big));

    store.flush().unwrap();
}

#[test]
fn memory_store_passes_the_suite() {
    suite(&MemoryStore::new());
}

#[test]
fn sled_store_passes_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    suite(&SledStore::open(dir.path()).unwrap());
}

#[test]
fn sled_store_keeps_flushed_writes_across_reopening() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = SledStore::open(dir.path()).unwrap();
        store.apply(&[put(Tree::Meta, b"k", b"v")]).unwrap();
        store.flush().unwrap();
    }
    let store = SledStore::open(dir.path()).unwrap();
    assert_eq!(store.get(Tree::Meta, b"k").unwrap().as_deref(), Some(&b"v"[..]));
    assert!(store.size_on_disk().unwrap() > 0);
}
