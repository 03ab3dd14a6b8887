//! Number formatting for chart labels and tables: SI prefixes with three significant digits,
//! so a label stays short and a reader can still tell 4.74 MB from 4.64 MB.

/// Formats `value` with a decimal SI prefix (k, M, G, T, P) and `unit`, three significant
/// digits: `fmt_si(4_741_440.0, "B")` is `"4.74 MB"`. Values below 1 use plain decimals
/// (`0.0833 FLOP/B`), never milli prefixes, because "mFLOP/B" reads as a different unit.
pub fn fmt_si(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return "n/a".to_string();
    }
    const PREFIXES: [(f64, &str); 5] =
        [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    let magnitude = value.abs();
    for (scale, prefix) in PREFIXES {
        if magnitude >= scale {
            return join(&sig3(value / scale), prefix, unit);
        }
    }
    join(&sig3(value), "", unit)
}

fn join(number: &str, prefix: &str, unit: &str) -> String {
    if prefix.is_empty() && unit.is_empty() {
        number.to_string()
    } else {
        format!("{number} {prefix}{unit}")
    }
}

/// Formats a number with three significant digits and no exponent (`1070`, `35.4`, `0.00312`).
pub fn sig3(value: f64) -> String {
    if !value.is_finite() {
        return "n/a".to_string();
    }
    if value == 0.0 {
        return "0".to_string();
    }
    let digits_before = value.abs().log10().floor() as i32 + 1;
    let decimals = (3 - digits_before).clamp(0, 12) as usize;
    format!("{value:.decimals$}")
}

/// Formats an axis tick in one SI style: the prefix (k, M, G, T, P) and at most three
/// significant digits with no trailing zeros, so a decade axis reads `0.01`, `1`, `100`,
/// `1 k`, `10 G`, `1 T`; `unit` follows the prefix when given (`10 GFLOP/s`).
pub fn fmt_tick(value: f64, unit: &str) -> String {
    if !value.is_finite() {
        return String::new();
    }
    const PREFIXES: [(f64, &str); 5] =
        [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    let magnitude = value.abs() * (1.0 + 1e-9);
    let (scale, prefix) = PREFIXES
        .into_iter()
        .find(|(scale, _)| magnitude >= *scale)
        .unwrap_or((1.0, ""));
    let mut number = sig3(value / scale);
    if number.contains('.') {
        number = number
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string();
    }
    if prefix.is_empty() && unit.is_empty() {
        number
    } else {
        format!("{number} {prefix}{unit}")
    }
}

/// Formats a ratio as `x1.53` or `x0.0031`, for before/after deltas.
pub fn fmt_ratio(after: f64, before: f64) -> String {
    if before == 0.0 || !before.is_finite() || !after.is_finite() {
        return "n/a".to_string();
    }
    format!("x{}", sig3(after / before))
}

/// `-` for an absent value, else `f(value)`: the placeholder every table prints for a figure
/// it does not have.
pub fn opt<T>(value: Option<T>, f: impl FnOnce(T) -> String) -> String {
    value.map_or_else(|| "-".to_owned(), f)
}

/// Milliseconds to four decimals, without the unit (the header has it).
pub fn ms(v: f64) -> String {
    format!("{v:.4}")
}

/// Formats a percentage with one decimal (`62.4 %`).
pub fn fmt_pct(value: f64) -> String {
    if !value.is_finite() {
        return "n/a".to_string();
    }
    format!("{value:.1} %")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_prefixes_and_significant_digits() {
        let cases: &[(f64, &str, &str)] = &[
            (4_741_440.0, "B", "4.74 MB"),
            (96_000_000.0, "B", "96.0 MB"),
            (35.4e9, "B/s", "35.4 GB/s"),
            (8_141e9, "FLOP/s", "8.14 TFLOP/s"),
            (0.0833, "FLOP/B", "0.0833 FLOP/B"),
            (512.0, "", "512"),
            (0.0, "B", "0 B"),
            (f64::NAN, "B", "n/a"),
            (-2_500.0, "B", "-2.50 kB"),
        ];
        for (value, unit, want) in cases {
            assert_eq!(fmt_si(*value, unit), *want, "fmt_si({value}, {unit:?})");
        }
    }

    #[test]
    fn ticks_share_one_si_style() {
        let ticks: Vec<String> = [
            0.01, 0.1, 1.0, 10.0, 100.0, 1e3, 1e4, 1e10, 1e11, 1e12, 1e15,
        ]
        .iter()
        .map(|v| fmt_tick(*v, ""))
        .collect();
        assert_eq!(
            ticks,
            ["0.01", "0.1", "1", "10", "100", "1 k", "10 k", "10 G", "100 G", "1 T", "1 P"]
        );
        assert_eq!(fmt_tick(2.5e12, "FLOP/s"), "2.5 TFLOP/s");
        assert_eq!(fmt_tick(999.99999999, ""), "1 k");
    }

    #[test]
    fn ratios_and_percentages() {
        assert_eq!(fmt_ratio(1.575, 1.028), "x1.53");
        assert_eq!(fmt_ratio(1.0, 0.0), "n/a");
        assert_eq!(fmt_pct(62.432), "62.4 %");
        assert_eq!(sig3(1074.8), "1075");
        assert_eq!(sig3(0.003125), "0.00313");
    }
}
