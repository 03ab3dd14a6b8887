//! Summary statistics of event-timed repetitions (rates from them are
//! `shared::model::roofline::giga_per_s`, the median `shared::analysis::multi::median`).

use shared::model::artifact::Timing;

/// Min, median and max of `samples_ms` (launch order kept in the result); `None` when empty.
pub fn timing(warmups: u32, samples_ms: Vec<f64>) -> Option<Timing> {
    let mut sorted = samples_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let (first, last) = (*sorted.first()?, *sorted.last()?);
    let median = shared::analysis::multi::median(&sorted)?;
    Some(Timing {
        warmups,
        min_ms: first,
        median_ms: median,
        max_ms: last,
        samples_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let t = timing(3, vec![3.0, 1.0, 2.0]).expect("samples");
        assert_eq!((t.min_ms, t.median_ms, t.max_ms), (1.0, 2.0, 3.0));
        assert_eq!(t.samples_ms, vec![3.0, 1.0, 2.0], "launch order kept");
        assert_eq!(t.warmups, 3);
        let t = timing(0, vec![4.0, 1.0, 2.0, 3.0]).expect("samples");
        assert_eq!(t.median_ms, 2.5);
        assert!(timing(0, Vec::new()).is_none());
    }
}
