//! Readable labels for C++ kernel names, which ncu prints hundreds of characters long with
//! templates, lambdas and parameter lists. The full name is always kept elsewhere (tooltip,
//! table cell); these labels are only for places with no room.

/// Shortens a kernel name for a label: drops the return type, the parameter list, the
/// namespaces and the template arguments (`<…>`), then cuts to `max_chars` characters with
/// an ellipsis. `void at::native::elementwise_kernel<128, 4, F>(int, F)` becomes
/// `elementwise_kernel<…>`. A name that is already short is returned unchanged.
pub fn shorten_kernel_name(name: &str, max_chars: usize) -> String {
    let name = name.trim();
    if name.chars().count() <= max_chars && !name.contains('<') && !name.contains('(') {
        return name.to_string();
    }
    let collapsed = collapse_nested(name);
    let without_params = drop_trailing_params(&collapsed);
    let base = last_component(without_params);
    let base = if base.is_empty() { name } else { base };
    truncate(base, max_chars)
}

/// Replaces everything inside `<…>` and `{…}` (outermost level) with a single `…`, keeping
/// parentheses, so `f<A<B>>(int)` becomes `f<…>(int)`.
fn collapse_nested(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' | '{' => {
                if depth == 0 {
                    out.push(c);
                    out.push('…');
                }
                depth += 1;
            }
            '>' | '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(c);
                }
            }
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Drops a trailing balanced `( … )` parameter list (and anything after it, such as
/// `const`), when the name has one after its first character.
fn drop_trailing_params(name: &str) -> &str {
    // The parameter list is the last top-level parenthesis group; "(anonymous namespace)"
    // at the front is a namespace, not parameters.
    let mut depth = 0usize;
    let mut last_open_at_top = None;
    for (i, c) in name.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    last_open_at_top = Some(i);
                }
                depth += 1;
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    match last_open_at_top {
        Some(i) if i > 0 && !name[i..].starts_with("(anonymous namespace)") => name[..i].trim_end(),
        _ => name,
    }
}

/// The last `::` component outside parentheses, with a leading return type (`void `) cut.
fn last_component(name: &str) -> &str {
    let mut depth = 0usize;
    let mut start = 0usize;
    let bytes = name.as_bytes();
    let mut i = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                start = i + 2;
                i += 1;
            }
            b' ' if depth == 0 => start = i + 1,
            _ => {}
        }
        i += 1;
    }
    name.get(start..).unwrap_or(name).trim()
}

fn truncate(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_string();
    }
    let keep = max_chars.saturating_sub(1);
    let mut out: String = s.chars().take(keep).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::shorten_kernel_name;

    #[test]
    fn shortens_cpp_names() {
        let cases: &[(&str, usize, &str)] = &[
            ("copy", 24, "copy"),
            ("fma_loop(float *, int)", 24, "fma_loop"),
            (
                "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, \
                 at::detail::Array<char *, 1>>(int, at::native::FillFunctor<float>, \
                 at::detail::Array<char *, 1>)",
                40,
                "vectorized_elementwise_kernel<…>",
            ),
            (
                "void cub::DeviceReduceKernel<cub::Policy600, float*, {lambda(int)#1}>(float*)",
                40,
                "DeviceReduceKernel<…>",
            ),
            ("(anonymous namespace)::heat_step(float const*, float*)", 40, "heat_step"),
            (
                "a_kernel_name_that_is_much_longer_than_the_limit",
                16,
                "a_kernel_name_t…",
            ),
            ("<img src=x onerror=alert(1)>", 40, "<…>"),
        ];
        for (name, max, want) in cases {
            assert_eq!(shorten_kernel_name(name, *max), *want, "{name}");
        }
    }

    #[test]
    fn never_empty_and_never_longer_than_asked() {
        for name in ["", "(", "<<<", "::", "void", "f<(>)"] {
            let short = shorten_kernel_name(name, 8);
            assert!(
                short.chars().count() <= 8.max(name.chars().count()),
                "{name:?}"
            );
        }
    }
}
