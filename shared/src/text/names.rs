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

/// The name with every template argument list collapsed to `<…>` (parameters kept), so two
/// instantiations of one template compare equal: `void k<4, float>(int)` and
/// `void k<8, half>(int)` both give `void k<…>(int)`.
pub fn without_template_args(name: &str) -> String {
    collapse_nested(name.trim())
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

/// `s` cut to at most `max_chars` characters in the middle, keeping its start and, longer,
/// its end: kernels of one template differ at the end of their short names
/// (`vectorized_elementwise_kernel<4, tanh_kernel_cuda…>` in 30 characters is
/// `vectorized_…tanh_kernel_cuda…>`), which a cut at the end loses. A string that fits is
/// returned unchanged.
pub fn elide_middle(s: &str, max_chars: usize) -> String {
    let len = s.chars().count();
    if len <= max_chars {
        return s.to_string();
    }
    let kept = max_chars.saturating_sub(1);
    let head = kept * 2 / 5;
    let tail = kept - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(len - tail));
    out
}

/// A kernel's short name cut to at most `max_chars` characters for a table cell: a
/// template's instantiations differ at the end (cut as [`elide_middle`] cuts), a plain
/// name such as cuBLAS's `nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_bias_TNT` near its
/// front (its tile), so a plain name keeps two thirds of its front and its last
/// characters (`nvjet_sm90_tst_192x128_…opB_bias_TNT` in 36).
pub fn elide_name(s: &str, max_chars: usize) -> String {
    let len = s.chars().count();
    if len <= max_chars || s.contains('<') {
        return elide_middle(s, max_chars);
    }
    let kept = max_chars.saturating_sub(1);
    let head = kept * 2 / 3;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(len - (kept - head)));
    out
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

/// The most characters of a kernel's label in a table cell or a list
/// ([`distinct_labels`]): what fits the viewer's name column (23rem) at the table's font.
pub const LABEL_CHARS: usize = 36;

/// The longest short name shown for a kernel whose name is unique in its artifact.
pub const SHORT_NAME_CHARS: usize = 64;

/// Longest template argument kept in a short name.
const ARG_CHARS: usize = 32;

/// Short names distinct within one artifact, in the order of `names`. A kernel whose function
/// name no other kernel shares gets [`shorten_kernel_name`]'s label
/// (`vectorized_layer_norm_kernel<…>`); kernels sharing a function name get the template
/// arguments that tell them apart, each cut to its own last name
/// (`vectorized_elementwise_kernel<4, tanh_kernel_cuda…>`, the `…` standing for the arguments
/// left out), with the inner template arguments written out only where that is still not
/// enough. Names that are still equal (the same name twice) get ` #2`, ` #3`, ... in order.
pub fn distinct_short_names(names: &[&str]) -> Vec<String> {
    // A CUTLASS kernel's head is its label (its tile): only kernels of one tile share one.
    let (heads, mut out): (Vec<String>, Vec<String>) = names
        .iter()
        .map(|n| match cutlass_label(n) {
            Some(label) => (label.clone(), elide_name(&label, SHORT_NAME_CHARS)),
            None => {
                let base = shorten_kernel_name(n, usize::MAX);
                let head = base.split('<').next().unwrap_or_default().to_string();
                (head, shorten_kernel_name(n, SHORT_NAME_CHARS))
            }
        })
        .unzip();
    // The kernels of each head shared by two or more, by sorting (a scan per kernel made a
    // table of 200,000 kernels take tens of seconds).
    let groups = equal_labels(&heads);
    for group in groups {
        if group.len() < 2 {
            continue;
        }
        let args: Vec<Vec<&str>> = group.iter().map(|&j| template_args(names[j])).collect();
        let width = args.iter().map(Vec::len).max().unwrap_or(0);
        let differing: Vec<usize> = (0..width)
            .filter(|&p| {
                let first = args[0].get(p);
                args.iter().any(|a| a.get(p) != first)
            })
            .collect();
        if differing.is_empty() {
            continue;
        }
        let label = |a: &[&str], shown: &[usize], expand: bool| {
            let parts: Vec<String> = shown
                .iter()
                .map(|&p| simplify_arg(a.get(p).copied().unwrap_or(""), expand))
                .collect();
            let omitted = if shown.len() < a.len() { "…" } else { "" };
            format!("{}<{}{omitted}>", heads[group[0]], parts.join(", "))
        };
        let distinct = |shown: &[usize], expand: bool| {
            let mut labels: Vec<String> = args.iter().map(|a| label(a, shown, expand)).collect();
            crate::order::sort(&mut labels);
            labels.dedup();
            labels.len()
        };
        // Greedily add the argument position that tells most kernels apart, until all are
        // apart or no position helps; inner template arguments are written out only if the
        // collapsed ones cannot do it.
        let mut chosen = None;
        for expand in [false, true] {
            let mut shown: Vec<usize> = Vec::new();
            let mut best = 1;
            while best < group.len() {
                let next = differing
                    .iter()
                    .filter(|p| !shown.contains(p))
                    .map(|&p| {
                        let mut with: Vec<usize> = shown.clone();
                        with.push(p);
                        crate::order::sort(&mut with);
                        (distinct(&with, expand), std::cmp::Reverse(p), with)
                    })
                    .max_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
                match next {
                    Some((n, _, with)) if n > best => {
                        best = n;
                        shown = with;
                    }
                    _ => break,
                }
            }
            let done_here = best == group.len();
            chosen = Some((shown, expand));
            if done_here {
                break;
            }
        }
        if let Some((shown, expand)) = chosen {
            for (&j, a) in group.iter().zip(&args) {
                out[j] = label(a, &shown, expand);
            }
        }
    }
    // Whatever is still equal gets a number, in order.
    for group in equal_labels(&out) {
        for (n, &i) in group.iter().enumerate().skip(1) {
            out[i] = format!("{} #{}", out[i], n + 1);
        }
    }
    out
}

/// A CUTLASS kernel's label: what names its tile and layout, which its wrapper's own name
/// (`Kernel2<…>`, `device_kernel<…>`) hides. A CUTLASS 2 kernel's one argument names it
/// whole (`cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>`
/// gives `cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2`: the SM80
/// instruction, the 256x128 tile, the `tn` layout); a CuTe kernel gets its kernel type's own
/// name and its first shape of compile-time integers that is not all ones (the cluster
/// shape, 1x1x1, comes first): `GemmUniversal<128x16x64>`. `None` for any other name.
pub fn cutlass_label(name: &str) -> Option<String> {
    let head = drop_trailing_params(name.trim());
    let head = head.strip_prefix("void ").unwrap_or(head).trim();
    let (wrapper, rest) = head.split_once('<')?;
    if !matches!(
        wrapper,
        "cutlass::Kernel" | "cutlass::Kernel2" | "cutlass::device_kernel"
    ) {
        return None;
    }
    let inner = rest.strip_suffix('>')?.trim();
    if !inner.is_empty()
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Some(inner.to_string());
    }
    // The kernel type: the innermost of wrappers such as `flash::enable_sm90_or_later<…>`.
    let mut kernel = inner;
    loop {
        let (path, args) = kernel.split_once('<')?;
        let own = last_name(path);
        if own.starts_with("enable_") {
            kernel = args.strip_suffix('>')?.trim();
            continue;
        }
        return Some(match cute_tile(args) {
            Some(tile) => format!("{own}<{tile}>"),
            None => format!("{own}<…>"),
        });
    }
}

/// The first `cute::tuple` of compile-time integers (`cute::C<(int)128>`) in `s` that is
/// not all ones, as `128x16x64`.
fn cute_tile(s: &str) -> Option<String> {
    const OPEN: &str = "cute::tuple<";
    let mut rest = s;
    while let Some(at) = rest.find(OPEN) {
        rest = &rest[at + OPEN.len()..];
        let mut depth = 1usize;
        let end = rest.char_indices().find_map(|(i, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        let dims: Option<Vec<&str>> = split_top_level(&rest[..end])
            .into_iter()
            .map(|a| {
                let n = a.strip_prefix("cute::C<")?.strip_suffix('>')?;
                let n = n.strip_prefix("(int)").unwrap_or(n);
                n.bytes().all(|b| b.is_ascii_digit()).then_some(n)
            })
            .collect();
        if let Some(dims) = dims.filter(|d| d.len() >= 2 && d.iter().any(|n| *n != "1")) {
            return Some(dims.join("x"));
        }
    }
    None
}

/// Labels of at most `max_chars` characters (a table cell, a chart label) for names that
/// are distinct (as [`distinct_short_names`] makes them), distinct too: each is cut as
/// [`elide_name`] cuts, and where that makes two equal, the names of that set keep what
/// they have in common only at their two ends and show where they differ (GPT-2's and
/// BERT's `multi_tensor_apply_kernel<…BinaryOpScalar…>` and `<…PointwiseOpScalar…>` had one
/// label). Labels that no cut of `max_chars` tells apart get ` #2`, ` #3`, ... in order.
/// Equal names keep equal labels.
pub fn distinct_labels(names: &[&str], max_chars: usize) -> Vec<String> {
    let mut out: Vec<String> = names.iter().map(|n| elide_name(n, max_chars)).collect();
    for group in equal_labels(&out) {
        if group.iter().all(|&i| names[i] == names[group[0]]) {
            continue;
        }
        let chars: Vec<Vec<char>> = group.iter().map(|&i| names[i].chars().collect()).collect();
        let common = |a: &[char], b: &[char]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let prefix = chars
            .iter()
            .map(|c| common(&chars[0], c))
            .min()
            .unwrap_or(0);
        for (g, name) in group.iter().zip(&chars) {
            // Where this name first differs from the others that are not equal to it.
            let differs = chars
                .iter()
                .filter(|c| *c != name)
                .map(|c| common(name, c))
                .max()
                .unwrap_or(prefix);
            out[*g] = window(name, prefix, differs, max_chars);
        }
    }
    // Whatever is still equal for different names gets a number, in order.
    for group in equal_labels(&out) {
        let mut n = 1;
        for &i in group.iter().skip(1) {
            if names[i] != names[group[0]] {
                n += 1;
                let mark = format!(" #{n}");
                let room = max_chars.saturating_sub(mark.chars().count());
                out[i] = format!("{}{mark}", elide_middle(&out[i], room));
            }
        }
    }
    out
}

/// The positions of `labels` that share a label with another, one group per label (in order
/// of position within it), by sorting rather than hashing (one sort for the viewer's wasm).
fn equal_labels(labels: &[String]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    crate::order::sort_by(&mut order, |&a, &b| {
        labels[a].cmp(&labels[b]).then(a.cmp(&b))
    });
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut start = 0;
    for end in 1..=order.len() {
        if end == order.len() || labels[order[end]] != labels[order[start]] {
            if end - start > 1 {
                groups.push(order[start..end].to_vec());
            }
            start = end;
        }
    }
    groups
}

/// `name` in at most `max_chars` characters showing the characters from `from` up to and
/// including `to` (where it differs from others), with its start and end where room is left,
/// `…` for what is left out.
fn window(name: &[char], from: usize, to: usize, max_chars: usize) -> String {
    let len = name.len();
    if len <= max_chars {
        return name.iter().collect();
    }
    let keep = max_chars.saturating_sub(2);
    // The differing stretch first; then the name's start, then its end, then more around
    // the stretch.
    // The stretch widened to whole words (`BinaryOpScalarFunctor`, `bprop`, not `B`).
    let word = |c: &char| c.is_alphanumeric();
    let mut from = from.min(len);
    while from > 0 && name.get(from - 1).is_some_and(word) {
        from -= 1;
    }
    let mut to = (to + 1).min(len);
    while to < len && name.get(to).is_some_and(word) {
        to += 1;
    }
    let need = to.saturating_sub(from).min(keep);
    let spare = keep - need;
    let head = (spare / 3).min(from);
    let mut mid_end = from + need;
    let tail = (spare / 3).min(len - mid_end);
    let left = spare - head - tail;
    let grow = left.min(len - tail - mid_end);
    mid_end += grow;
    let mid_start = from - (left - grow).min(from - head);
    let mut out: String = name[..head].iter().collect();
    if mid_start > head {
        out.push('…');
    }
    out.extend(&name[mid_start..mid_end]);
    if mid_end < len - tail {
        out.push('…');
    }
    out.extend(&name[len - tail..]);
    out
}

/// The top-level template arguments of a kernel's own name (after its parameter list is
/// dropped): `f<4, g<int>, X>(int)` gives `["4", "g<int>", "X"]`; none for a plain name.
fn template_args(name: &str) -> Vec<&str> {
    let head = drop_trailing_params(name.trim());
    let bytes = head.as_bytes();
    if bytes.last() != Some(&b'>') {
        return Vec::new();
    }
    // Find the `<` that opens the final `>`.
    let mut depth = 0usize;
    let mut open = None;
    for (i, b) in bytes.iter().enumerate().rev() {
        match b {
            b'>' => depth += 1,
            b'<' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(open) = open else {
        return Vec::new();
    };
    let inner = &head[open + 1..head.len() - 1];
    split_top_level(inner)
}

/// Splits at commas outside every bracket pair.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// One template argument for a label: a lambda's enclosing function or a functor, by its own
/// last name (`at::tanh_kernel_cuda(at::TensorIteratorBase &)::[lambda…]` becomes
/// `tanh_kernel_cuda`), inner template arguments collapsed unless `expand`.
fn simplify_arg(arg: &str, expand: bool) -> String {
    let arg = arg.trim().trim_start_matches("void ").trim();
    // A lambda or a function type: keep what stands before the parameter list.
    let mut depth = 0i32;
    let mut cut = arg.len();
    for (i, c) in arg.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' | '[' | '{' if depth == 0 && i > 0 => {
                cut = i;
                break;
            }
            _ => {}
        }
    }
    let arg = arg[..cut].trim_end_matches(':').trim();
    let own = last_name(arg);
    let text = if expand {
        match own.split_once('<') {
            Some((head, rest)) => {
                let inner = rest.strip_suffix('>').unwrap_or(rest);
                let parts: Vec<String> = split_top_level(inner)
                    .into_iter()
                    .map(|a| simplify_arg(a, true))
                    .collect();
                format!("{head}<{}>", parts.join(", "))
            }
            None => own.to_string(),
        }
    } else {
        collapse_nested(own)
    };
    truncate(&text, ARG_CHARS)
}

/// The last `::` component outside angle brackets (`at::native::F<c10::Half>` gives
/// `F<c10::Half>`).
fn last_name(s: &str) -> &str {
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = s.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => start = i + 2,
            _ => {}
        }
    }
    s.get(start..).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::{
        cutlass_label, distinct_labels, distinct_short_names, elide_middle, elide_name,
        shorten_kernel_name,
    };

    #[test]
    fn labels_keep_where_names_differ() {
        // BERT's two optimizer kernels (real names from its step), whose ends and starts
        // are the same: cut as a lone name, both read `multi_tensor_…>, multiplies<…>…>`.
        let names = [
            "multi_tensor_apply_kernel<TensorListMetadata<2>, BinaryOpScalarFunctor<float, 2, 1, 1>, multiplies<float>, float>",
            "multi_tensor_apply_kernel<TensorListMetadata<2>, PointwiseOpScalarFunctor<float, 2, 1, 1>, multiplies<float>, float>",
            "short_one",
            "short_one",
        ];
        let lone: Vec<String> = names.iter().map(|n| elide_name(n, 36)).collect();
        assert_eq!(lone[0], lone[1], "the clash this repairs");
        let labels = distinct_labels(&names, 36);
        assert_ne!(labels[0], labels[1]);
        assert!(labels[0].contains("Bin"), "{}", labels[0]);
        assert!(labels[1].contains("Poi"), "{}", labels[1]);
        assert_eq!(labels[2], labels[3], "equal names keep equal labels");
        for l in &labels {
            assert!(l.chars().count() <= 36, "{l}");
        }
    }

    #[test]
    fn labels_are_distinct_for_many_near_names() {
        let names: Vec<String> = (0..40)
            .map(|i| format!("kernel_with_a_long_common_start_{i:03}_and_a_long_common_end"))
            .collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        for max in [12, 20, 36] {
            let labels = distinct_labels(&refs, max);
            for (i, a) in labels.iter().enumerate() {
                assert!(labels[..i].iter().all(|b| b != a), "{a} twice in {max}");
            }
        }
    }

    #[test]
    fn cutlass_kernels_keep_tile_and_layout() {
        let cases = [
            (
                "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>(T1::Params)",
                Some("cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2"),
            ),
            (
                "void cutlass::device_kernel<flash::FlashAttnFwdCombine<cute::tuple<cute::C<(int)8>, cute::C<(int)128>>, (int)5, (int)256, (int)1, (bool)0, (bool)1, cutlass::bfloat16_t, float, cutlass::arch::Sm90>>(T1::Params)",
                Some("FlashAttnFwdCombine<8x128>"),
            ),
            (
                "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::GroupProblemShape<cute::tuple<long, long, long>>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90ArrayTmaGmmaWarpSpecialized<(int)12, cute::tuple<cute::C<(int)1>, cute::C<(int)1>, cute::C<(int)1>>, cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative>, cute::tuple<cute::C<(int)128>, cute::C<(int)16>, cute::C<(int)64>>, cutlass::bfloat16_t>>(T1::Params)",
                Some("GemmUniversal<128x16x64>"),
            ),
            ("void at::native::k<4>(int)", None),
        ];
        for (name, want) in cases {
            assert_eq!(cutlass_label(name).as_deref(), want, "{name}");
        }
        let three = [
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>(T1::Params)",
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_32x3_nt_align2>(T1::Params)",
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_nn_align2>(T1::Params)",
        ];
        let short = distinct_short_names(&three);
        assert!(short.iter().all(|s| !s.contains('#')), "{short:?}");
        let refs: Vec<&str> = short.iter().map(String::as_str).collect();
        let labels = distinct_labels(&refs, 36);
        assert!(
            labels[0].contains("tn") && labels[1].contains("nt"),
            "{labels:?}"
        );
        assert_ne!(labels[0], labels[2]);
    }

    #[test]
    fn table_names_keep_a_plain_name_s_tile_and_a_template_s_end() {
        let cases = [
            (
                "nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_bias_TNT",
                36,
                "nvjet_sm90_tst_192x128_…opB_bias_TNT",
            ),
            (
                "vectorized_elementwise_kernel<4, tanh_kernel_cuda…>",
                30,
                "vectorized_…tanh_kernel_cuda…>",
            ),
            ("short_kernel", 30, "short_kernel"),
        ];
        for (name, max, want) in cases {
            let got = elide_name(name, max);
            assert_eq!(got, want, "{name} in {max}");
            assert!(got.chars().count() <= max);
        }
    }

    #[test]
    fn elided_names_keep_the_end_that_tells_kernels_apart() {
        let cases = [
            ("short_kernel", 30, "short_kernel"),
            (
                "vectorized_elementwise_kernel<4, tanh_kernel_cuda…>",
                30,
                "vectorized_…tanh_kernel_cuda…>",
            ),
            (
                "vectorized_elementwise_kernel<4, gelu_kernel_cuda…>",
                30,
                "vectorized_…gelu_kernel_cuda…>",
            ),
            ("abcdefghij", 6, "ab…hij"),
            ("abcdefghij", 1, "…"),
        ];
        for (name, max, want) in cases {
            let got = elide_middle(name, max);
            assert_eq!(got, want, "{name} in {max}");
            assert!(got.chars().count() <= max.max(1));
        }
    }

    #[test]
    fn short_names_tell_templated_kernels_apart() {
        let names = [
            "void at::vectorized_elementwise_kernel<4, at::tanh_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)",
            "void at::vectorized_elementwise_kernel<4, at::CUDAFunctorOnSelf_add<float>, std::array<char *, 2>>(int, T2, T3)",
            "void at::vectorized_elementwise_kernel<2, at::CUDAFunctorOnSelf_add<long>, std::array<char *, 2>>(int, T2, T3)",
            "void at::vectorized_elementwise_kernel<8, at::AUnaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, binary_internal::MulFunctor<float>>, std::array<char *, 2>>(int, T2, T3)",
            "void at::vectorized_elementwise_kernel<4, at::AUnaryFunctor<float, float, float, binary_internal::MulFunctor<float>>, std::array<char *, 2>>(int, T2, T3)",
            "void at::<unnamed>::vectorized_layer_norm_kernel<float, float, 0>(int, T2, const T1 *, const T1 *, const T1 *, T2 *, T2 *, T1 *)",
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
        ];
        let short = distinct_short_names(&names);
        assert_eq!(
            short[0],
            "vectorized_elementwise_kernel<4, tanh_kernel_cuda…>"
        );
        assert_eq!(
            short[1],
            "vectorized_elementwise_kernel<4, CUDAFunctorOnSelf_add<…>…>"
        );
        assert_eq!(
            short[2],
            "vectorized_elementwise_kernel<2, CUDAFunctorOnSelf_add<…>…>"
        );
        assert_eq!(
            short[3],
            "vectorized_elementwise_kernel<8, AUnaryFunctor<…>…>"
        );
        assert_eq!(
            short[4],
            "vectorized_elementwise_kernel<4, AUnaryFunctor<…>…>"
        );
        assert_eq!(short[5], "vectorized_layer_norm_kernel<…>");
        assert_eq!(short[6], "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
        assert_eq!(
            short[7],
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT #2"
        );
        for (i, a) in short.iter().enumerate() {
            assert!(short[..i].iter().all(|b| b != a), "{a} twice");
        }
    }

    #[test]
    fn inner_arguments_are_written_out_only_when_needed() {
        let names = ["void k<F<float>>(int)", "void k<F<double>>(int)"];
        assert_eq!(
            distinct_short_names(&names),
            ["k<F<float>>", "k<F<double>>"]
        );
        assert_eq!(distinct_short_names(&["void k<F<float>>(int)"]), ["k<…>"]);
    }

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
