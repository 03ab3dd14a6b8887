//! Several artifacts read together: the GPUs of one host measured one after the other
//! (`capture run --device all`, [`devices`]), and the ranks of one distributed job each
//! profiled into its own artifact (`capture profile -o prof-{rank}.json` under `torchrun`
//! or `srun`, [`ranks`]). Both take artifacts the caller has already read, group them, and
//! work every figure the viewer shows of the group, so the page computes none.

pub mod devices;
pub mod ranks;

/// The median of `values` (the mean of the two middle ones for an even count); `None` when
/// empty. Non-finite values sort by [`f64::total_cmp`] and should be left out by the caller.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    crate::order::sort_floats(&mut sorted);
    let mid = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => sorted.get(mid).copied(),
        _ => Some((sorted.get(mid - 1)? + sorted.get(mid)?) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_even_and_empty_lists() {
        let cases: [(&[f64], Option<f64>); 5] = [
            (&[], None),
            (&[3.0], Some(3.0)),
            (&[4.0, 2.0], Some(3.0)),
            (&[5.0, 1.0, 3.0], Some(3.0)),
            (&[1.0, 9.0, 2.0, 8.0], Some(5.0)),
        ];
        for (values, want) in cases {
            assert_eq!(median(values), want, "{values:?}");
        }
    }
}
