//! A GPU histogram beside the states a model allows (DESIGN §4 `gpu-forbidden-outcome`).
//!
//! Both sides are projected onto the names they share and whose values mean the same on both
//! (the kernel's comparable outputs and global locations, [`crate::Output::comparable`]). A GPU
//! state whose projection no allowed state has is forbidden; allowed states the GPU never showed
//! are coverage, not errors.

use std::collections::BTreeMap;

use super::Histogram;

/// One row: a projected state, how often the GPU showed it, how many model executions end in it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Row {
    pub state: Vec<i64>,
    pub gpu: u64,
    /// `None`: the model forbids it.
    pub model: Option<u64>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Comparison {
    /// The names the rows' values go with.
    pub names: Vec<String>,
    /// Every state either side has, GPU-seen first (most frequent first), then allowed-unseen.
    pub rows: Vec<Row>,
}

impl Comparison {
    pub fn forbidden(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.model.is_none())
    }

    pub fn allowed_unseen(&self) -> usize {
        self.rows.iter().filter(|r| r.gpu == 0).count()
    }

    /// `name=value` pairs of a row.
    pub fn named(&self, row: &Row) -> Vec<(String, i64)> {
        self.names.iter().cloned().zip(row.state.iter().copied()).collect()
    }
}

/// Compares `h` with the model's allowed states: each a list of `(name, value)` pairs and the
/// number of executions ending in it.
pub fn compare<'a, N: AsRef<str> + 'a>(h: &Histogram, allowed: impl IntoIterator<Item = (&'a [(N, i64)], u64)>) -> Comparison {
    let allowed: Vec<(&[(N, i64)], u64)> = allowed.into_iter().collect();
    let model_names: Vec<&str> = allowed.first().map(|(s, _)| s.iter().map(|(n, _)| n.as_ref()).collect()).unwrap_or_default();
    // Shared names, in the GPU's order.
    let shared: Vec<(usize, usize)> =
        h.names.iter().enumerate().filter_map(|(gi, n)| model_names.iter().position(|m| m == n).map(|mi| (gi, mi))).collect();
    let names = shared.iter().map(|&(gi, _)| h.names[gi].clone()).collect();
    let mut model: BTreeMap<Vec<i64>, u64> = BTreeMap::new();
    for (state, n) in &allowed {
        let key: Vec<i64> = shared.iter().map(|&(_, mi)| state.get(mi).map_or(0, |(_, v)| *v)).collect();
        *model.entry(key).or_default() += n;
    }
    let mut gpu: BTreeMap<Vec<i64>, u64> = BTreeMap::new();
    for (state, n) in &h.states {
        let key: Vec<i64> = shared.iter().map(|&(gi, _)| state[gi]).collect();
        *gpu.entry(key).or_default() += n;
    }
    let mut rows: Vec<Row> = gpu.iter().map(|(s, &n)| Row { state: s.clone(), gpu: n, model: model.get(s).copied() }).collect();
    rows.sort_by(|a, b| b.gpu.cmp(&a.gpu).then(a.state.cmp(&b.state)));
    for (s, &n) in &model {
        if !gpu.contains_key(s) {
            rows.push(Row { state: s.clone(), gpu: 0, model: Some(n) });
        }
    }
    Comparison { names, rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(names: &[&str], states: &[(&[i64], u64)]) -> Histogram {
        Histogram {
            names: names.iter().map(|s| s.to_string()).collect(),
            states: states.iter().map(|(s, n)| (s.to_vec(), *n)).collect(),
            ..Histogram::default()
        }
    }

    #[test]
    fn a_state_the_model_lacks_is_forbidden_and_unseen_states_are_counted() {
        let h = histogram(&["P1:r0", "P1:r1", "x"], &[(&[1, 0, 1], 5), (&[0, 0, 1], 90)]);
        let a: Vec<(String, i64)> = vec![("P1:r0".into(), 0), ("P1:r1".into(), 0), ("x".into(), 1), ("mbar".into(), 7)];
        let b: Vec<(String, i64)> = vec![("P1:r0".into(), 1), ("P1:r1".into(), 1), ("x".into(), 1), ("mbar".into(), 7)];
        let c = compare(&h, [(&a[..], 1), (&b[..], 2)]);
        assert_eq!(c.names, ["P1:r0", "P1:r1", "x"]);
        let forbidden: Vec<&Row> = c.forbidden().collect();
        assert_eq!(forbidden, [&Row { state: vec![1, 0, 1], gpu: 5, model: None }]);
        assert_eq!(c.rows[0], Row { state: vec![0, 0, 1], gpu: 90, model: Some(1) });
        assert_eq!(c.allowed_unseen(), 1);
    }

    #[test]
    fn names_only_one_side_has_are_projected_away() {
        // The GPU's opaque outputs are not in its names; the model's hidden locations are not
        // compared: two model states differing only there merge.
        let h = histogram(&["x"], &[(&[2], 3)]);
        let a: Vec<(&str, i64)> = vec![("x", 2), ("hidden", 0)];
        let b: Vec<(&str, i64)> = vec![("x", 2), ("hidden", 1)];
        let c = compare(&h, [(&a[..], 1), (&b[..], 1)]);
        assert_eq!(c.rows, [Row { state: vec![2], gpu: 3, model: Some(2) }]);
    }
}
