//! Small choices over an [`Unstructured`] byte source, shared by the pattern, mutant and
//! coverage-guided generators. With no bytes left every choice is the first option (`arbitrary`'s
//! convention), so any input gives a program.

use arbitrary::Unstructured;

/// A choice with probability `percent`/100.
pub(crate) fn chance(u: &mut Unstructured<'_>, percent: u8) -> arbitrary::Result<bool> {
    Ok(u.int_in_range(0..=99u8)? < percent)
}

/// Index into `weights`, each index with its weight; weight 0 is never chosen. `None` when every
/// weight is 0.
pub(crate) fn weighted_index(u: &mut Unstructured<'_>, weights: &[u64]) -> arbitrary::Result<Option<usize>> {
    let total: u64 = weights.iter().sum();
    if total == 0 {
        return Ok(None);
    }
    let mut pick = u.int_in_range(0..=total - 1)?;
    for (i, &w) in weights.iter().enumerate() {
        if pick < w {
            return Ok(Some(i));
        }
        pick -= w;
    }
    Ok(None)
}

/// One of `options` by weight; `None` when every weight is 0.
pub(crate) fn weighted<T: Copy>(u: &mut Unstructured<'_>, options: &[(u64, T)]) -> arbitrary::Result<Option<T>> {
    let weights: Vec<u64> = options.iter().map(|(w, _)| *w).collect();
    Ok(weighted_index(u, &weights)?.map(|i| options[i].1))
}

/// An index below `n` (`n > 0`).
pub(crate) fn index(u: &mut Unstructured<'_>, n: usize) -> arbitrary::Result<usize> {
    u.int_in_range(0..=n.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_of_zero_are_never_chosen() {
        let mut u = Unstructured::new(&[]);
        assert_eq!(weighted(&mut u, &[(0, 'a'), (2, 'b')]).unwrap(), Some('b'));
        let mut u = Unstructured::new(&[]);
        assert_eq!(weighted::<char>(&mut u, &[(0, 'a')]).unwrap(), None);
        for byte in 0..=255u8 {
            let bytes = [byte; 8];
            let mut u = Unstructured::new(&bytes);
            assert_ne!(weighted(&mut u, &[(1, 'a'), (0, 'b'), (1, 'c')]).unwrap(), Some('b'));
        }
    }
}
