//! The kernels' colours: how many the palette has and which one each kernel of a run takes
//! ([`kernel_colors`]), the same on every page and in every drawing ([`super::draw`] holds the
//! palette itself, behind the `draw` feature).

/// How many colours the drawing's palette has (`draw::palette`).
pub const PALETTE_LEN: usize = 10;

/// A colour for each kernel of a run, as palette indices, from the kernels' names in rank
/// order (most time first): each kernel's colour comes from its name (an FNV-1a hash), so it
/// stays the same in every precision mode and on every page, and moves to the next free
/// colour when that would repeat one of the two kernels ranked just above it, so neighbours
/// in the ranking never share a colour.
pub fn kernel_colors(names_by_rank: &[&str]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(names_by_rank.len());
    for name in names_by_rank {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        let mut c = (hash % PALETTE_LEN as u64) as usize;
        let recent: Vec<usize> = out.iter().rev().take(2).copied().collect();
        while recent.contains(&c) {
            c = (c + 1) % PALETTE_LEN;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_colours_follow_the_name_and_differ_between_neighbours() {
        let names: Vec<String> = (0..40).map(|i| format!("kernel_{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let colors = kernel_colors(&refs);
        for w in colors.windows(3) {
            assert!(w[0] != w[1] && w[1] != w[2] && w[0] != w[2], "{colors:?}");
        }
        // The first kernel's colour is its name's, wherever it ranks first.
        assert_eq!(kernel_colors(&refs[..1]), kernel_colors(&["kernel_0"]));
        assert!(colors.iter().all(|c| *c < PALETTE_LEN));
    }
}
