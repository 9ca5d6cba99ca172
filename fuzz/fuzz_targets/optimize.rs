//! The optimizer's entry point as the page and the command line use it: two programs (the
//! input split at its first `@@` line; the rest selects options), parsed, optimized,
//! validated, printed and parsed back. Any panic is a bug; so is a printed program that does
//! not parse back to itself.
#![no_main]

use hoist_asm::{ParseOptions, parse, print};
use hoist_opt::{CostModel, Options, Selection};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (flags, text) = data.split_first().map_or((0, &[][..]), |(f, t)| (*f, t));
    let text = String::from_utf8_lossy(text);
    let Some((vs, fs)) = text.split_once("\n@@\n") else {
        return;
    };
    let (Ok(vp), Ok(fp)) = (
        parse(vs, &ParseOptions::default()).into_result(),
        parse(fs, &ParseOptions::default()).into_result(),
    ) else {
        return;
    };
    let opts = Options {
        selection: if flags & 1 != 0 { Selection::Greedy } else { Selection::Optimal },
        mirror_params: flags & 2 != 0,
        commute: flags & 4 == 0,
        lower: flags & 8 == 0,
        vp_cleanup: flags & 16 == 0,
        cost: if flags & 32 != 0 { CostModel::modern_default(4.0, 1024.0) } else { CostModel::Paper },
        steps: (flags & 64 != 0).then_some(usize::from(flags >> 7)),
        search_budget: 16,
        ..Options::default()
    };
    let cfg = hoist_verify::Config { render_size: 8, ..hoist_verify::Config::default() };
    let Ok(v) = hoist_verify::optimize(&vp, &fp, &opts, Some(&cfg)) else {
        return;
    };
    for p in [&v.outcome.vp, &v.outcome.fp] {
        let printed = print(p);
        let again = parse(&printed, &ParseOptions::default())
            .into_result()
            .unwrap_or_else(|d| panic!("optimized program does not parse:\n{printed}\n{d:?}"));
        assert!(again.eq_ignoring_spans(p), "round trip changed the program:\n{printed}");
    }
});
