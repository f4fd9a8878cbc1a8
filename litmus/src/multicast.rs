//! The mbarriers a `.multicast::cluster` `tcgen05.commit` signals (PTX ISA, the `tcgen05.commit`
//! page): bit `i` of the 16-bit `ctaMask` names the CTA whose `%cluster_ctarank` is `i`, and the
//! mbarrier signalled there is the one at the same shared-memory offset as `mbar`.
//!
//! In a litmus program the CTAs of a cluster are those its threads are placed in, ranked by CTA
//! id (a thread without a declared cluster is alone in its own, rank 0); an mbarrier's offset is
//! its position among the mbarriers declared in its CTA (every CTA runs the same kernel, so the
//! k-th mbarrier of one CTA sits where the k-th of another does). The validator refuses a mask
//! that names no such mbarrier; the checker signals the ones it names.

use crate::ast::{Location, LocationKind, Placement, Program};

/// The mbarriers thread `thread`'s commit on `mbar` with the immediate `mask` signals, in rank
/// order, or why the mask names none there.
pub fn multicast_targets<'p>(p: &'p Program, thread: usize, mbar: &str, mask: i64) -> Result<Vec<&'p Location>, String> {
    if !(1..=0xFFFF).contains(&mask) {
        return Err(format!("multicast mask {mask}: a ctaMask is a non-zero 16-bit value"));
    }
    let mbarrier_of = |l: &Location| match l.kind {
        LocationKind::Mbarrier { cta, gpu, .. } => Some((gpu, cta)),
        _ => None,
    };
    let Some((gpu, own_cta)) = p.locations.iter().find(|l| l.name == mbar).and_then(mbarrier_of) else {
        return Err(format!("`{mbar}` is not an mbarrier (a multicast commit signals mbarriers)"));
    };
    let in_cta = |cta: u32| p.locations.iter().filter(move |l| mbarrier_of(l) == Some((gpu, cta)));
    let offset = in_cta(own_cta).position(|l| l.name == mbar).unwrap_or(0);
    let cluster = p.threads.get(thread).and_then(|t| t.placement.effective_cluster());
    let mut ctas: Vec<u32> = p
        .threads
        .iter()
        .filter(|t| cluster.is_some() && t.placement.effective_cluster() == cluster)
        .filter_map(|t| match t.placement {
            Placement::Ptx { cta, .. } => Some(cta),
            Placement::TileBlock { .. } => None,
        })
        .collect();
    ctas.sort_unstable();
    ctas.dedup();
    let mut out = Vec::new();
    for rank in (0..16).filter(|i| mask & (1 << i) != 0) {
        let Some(&cta) = ctas.get(rank) else {
            return Err(format!(
                "bit {rank} of multicast mask {mask:#x} names a CTA of rank {rank}, but the cluster has {} CTAs",
                ctas.len()
            ));
        };
        let Some(target) = in_cta(cta).nth(offset) else {
            return Err(format!(
                "multicast mask {mask:#x}: CTA {cta} declares no mbarrier at the offset of `{mbar}` (mbarrier {} of its CTA)",
                offset + 1
            ));
        };
        out.push(target);
    }
    Ok(out)
}
