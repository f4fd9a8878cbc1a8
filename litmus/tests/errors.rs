//! Every validation error kind, with the exact message and position a user sees.

use tcfuzz_litmus::{ErrorKind, parse};

/// Wraps PTX thread rows (columns, `|`-separated) in a program with two threads in CTAs 0 and 1.
fn ptx(init: &str, rows: &str, cond: &str) -> String {
    format!("PTX t\n{{ {init} }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n{rows}\n{cond}\n")
}

/// The first error as `line:col: message`, and its kind.
fn first_error(src: &str) -> (String, ErrorKind) {
    let e = parse(src).expect_err("the program must be rejected");
    let d = &e.0[0];
    (format!("{}:{}: {}", d.span.line, d.span.col, d.message), d.kind)
}

fn assert_error(src: &str, kind: ErrorKind, expected: &str) {
    let (msg, k) = first_error(src);
    assert_eq!(msg, expected, "for program:\n{src}");
    assert_eq!(k, kind, "for program:\n{src}");
}

#[test]
fn unknown_instruction() {
    assert_error(
        &ptx("x = 0;", " frob r0, x | ;", "exists (P0:r0 == 0)"),
        ErrorKind::UnknownInstruction,
        "4:2: unknown instruction `frob`; expected ld, st, atom, red, fence, membar, bar, barrier, mbarrier, cp.async.bulk, tcgen05.*, mov, add, beq, bne, goto, assume (or Dat3M's tld, suld, sust, cold)",
    );
}

#[test]
fn unknown_qualifier() {
    assert_error(
        &ptx("x = 0;", " ld.relaxed.gpu.bogus r0, x | ;", "exists (P0:r0 == 0)"),
        ErrorKind::UnknownQualifier,
        "4:16: unknown qualifier `.bogus` on `ld`; expected .weak .volatile .relaxed .acquire .release .acq_rel / .cta .cluster .gpu .sys / .global .shared .shared::cta .shared::cluster / .b32 .b64 .u32 .u64 .s32 .s64",
    );
    assert_error(
        &ptx("d @ tmem cta 0 cols 0-31 = 0;", " tcgen05.ld.sync.aligned.32x32b.x3.b32 r0, [d] | ;", "exists (P0:r0 == 0)"),
        ErrorKind::UnknownQualifier,
        "4:32: `.x3` is not a valid repeat count; expected .x1 .x2 .x4 .x8 .x16 .x32 .x64 .x128",
    );
}

#[test]
fn assume_needs_one_comparison_and_two_operands() {
    assert_error(
        &ptx("x = 0;", " ld.relaxed.gpu r0, x | ;\n assume.below r0, 1 | ;", "exists (P0:r0 == 0)"),
        ErrorKind::UnknownQualifier,
        "5:8: unknown qualifier `.below` on `assume`; expected one of .eq .ne .lt .le .gt .ge",
    );
    assert_error(
        &ptx("x = 0;", " ld.relaxed.gpu r0, x | ;\n assume r0, 1 | ;", "exists (P0:r0 == 0)"),
        ErrorKind::BadOperand,
        "5:2: `assume` needs exactly one comparison: assume.eq, .ne, .lt, .le, .gt or .ge",
    );
    assert!(
        first_error(&ptx("x = 0;", " ld.relaxed.gpu r0, x | ;\n assume.eq r0 | ;", "exists (P0:r0 == 0)")).0.contains("assume.cmp a, b")
    );
}

#[test]
fn forbidden_qualifier_combinations() {
    assert_error(
        &ptx("x = 0;", " ld.release.gpu r0, x | ;", "exists (P0:r0 == 0)"),
        ErrorKind::ForbiddenQualifiers,
        "4:4: `ld.release` is not allowed: a load is .weak, .volatile, .relaxed or .acquire (PTX ISA §9.7.9.8)",
    );
    assert_error(
        &ptx("x = 0;", " st.acquire.gpu x, 1 | ;", "exists (x == 1)"),
        ErrorKind::ForbiddenQualifiers,
        "4:4: `st.acquire` is not allowed: a store is .weak, .volatile, .relaxed or .release (PTX ISA §9.7.9.9)",
    );
    assert_error(
        &ptx("x = 0;", " ld.weak.gpu r0, x | ;", "exists (P0:r0 == 0)"),
        ErrorKind::ForbiddenQualifiers,
        "4:9: scope on a weak access: `ld.weak.gpu` is `.weak`, and weak or volatile accesses take no scope; add `.relaxed` (or `.acquire`/`.release`) or drop the scope",
    );
    assert_error(
        &ptx("x = 0;", " ld.relaxed r0, x | ;", "exists (P0:r0 == 0)"),
        ErrorKind::ForbiddenQualifiers,
        "4:4: `ld.relaxed` needs a scope: add one of .cta .cluster .gpu .sys",
    );
    assert_error(
        &ptx("x = 0;", " red.relaxed.gpu.exch x, 1 | ;", "exists (x == 1)"),
        ErrorKind::ForbiddenQualifiers,
        "4:17: `red` has no `.exch` or `.cas` (they return a value: use `atom`)",
    );
    assert_error(
        &ptx("x = 0;", " fence.sc | ;", "exists (x == 1)"),
        ErrorKind::ForbiddenQualifiers,
        "4:7: `fence.sc` needs a scope: add one of .cta .cluster .gpu .sys",
    );
}

#[test]
fn wrong_operands() {
    assert_error(
        &ptx("x = 0;", " atom.relaxed.gpu.cas r0, x, 1 | ;", "exists (P0:r0 == 0)"),
        ErrorKind::BadOperand,
        "4:31: `atom.relaxed.gpu.cas` takes 4 operands, found 3 operand(s): expected `atom.cas r, x, expected, new`",
    );
    assert_error(
        &ptx("x = 0;", " st.weak 1, x | ;", "exists (x == 1)"),
        ErrorKind::BadOperand,
        "4:10: operand 1 of `st.weak` must be a location, `x` or `[x]`, found `1`",
    );
}

#[test]
fn cta_group_2_needs_a_peer_cta_in_the_cluster() {
    let src = "PTX t\n{ s @ shared cta 0 = 0; }\n P0@cta 0,gpu 0 ;\n tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [s], 32 ;\nexists (s == 0)\n";
    assert_error(
        src,
        ErrorKind::NoPeerCta,
        "4:2: `tcgen05.alloc` with `cta_group::2` needs the peer CTA 1 in the same cluster, but thread P0 has none; place a thread in it, e.g. `P1@cta 1,cluster 0,gpu 0` (and give this thread `cluster 0`)",
    );
    // The same with the peer CTA present in one cluster is fine.
    let ok = "PTX t\n{ s @ shared cta 0 = 0; s1 @ shared cta 1 = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [s], 32 | tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [s1], 32 ;\nexists (s == 0)\n";
    parse(ok).expect("peer CTA present");
}

/// A `tcfuzz fuzz --gpu` run on an H100 (seed 5, program 31341, a coverage-guided splice) made
/// a multicast commit to CTAs 0 and 1 where only CTA 0 declares an mbarrier: the validator let it
/// through and the checker rejected it, a `checker-crash` discrepancy. The rule is shared now
/// (`multicast_targets`).
#[test]
fn a_multicast_commit_names_only_ctas_with_an_mbarrier_at_its_offset() {
    let commit = "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar]";
    let src = format!(
        "PTX t\n{{ bar @ mbarrier cta 0 gpu 0 count 1; }}\n P1@cta 1,cluster 0,gpu 0 | P2@cta 0,cluster 0,gpu 0 ;\n | {commit}, 3 ;\nexists (true)\n"
    );
    assert_error(
        &src,
        ErrorKind::BadOperand,
        "4:4: multicast mask 0x3: CTA 1 declares no mbarrier at the offset of `bar` (mbarrier 1 of its CTA)",
    );
    let beyond = format!(
        "PTX t\n{{ bar @ mbarrier cta 0 gpu 0 count 1; bar1 @ mbarrier cta 1 gpu 0 count 1; }}\n P1@cta 1,cluster 0,gpu 0 | P2@cta 0,cluster 0,gpu 0 ;\n | {commit}, 5 ;\nexists (true)\n"
    );
    assert_error(&beyond, ErrorKind::BadOperand, "4:4: bit 2 of multicast mask 0x5 names a CTA of rank 2, but the cluster has 2 CTAs");
    // With CTA 1's mbarrier at the same offset, both bits are fine.
    let ok = format!(
        "PTX t\n{{ bar @ mbarrier cta 0 gpu 0 count 1; bar1 @ mbarrier cta 1 gpu 0 count 1; }}\n P1@cta 1,cluster 0,gpu 0 | P2@cta 0,cluster 0,gpu 0 ;\n | {commit}, 3 ;\nexists (true)\n"
    );
    parse(&ok).expect("both CTAs declare an mbarrier at bar's offset");
}

#[test]
fn tcgen05_ld_outside_the_warps_lane_quarter() {
    let src = "PTX t\n{ d @ tmem cta 0 lanes 32-63 cols 0-31 = 0; }\n P0@warp 4,cta 0,gpu 0 ;\n tcgen05.ld.sync.aligned.32x32b.x1.b32 r0, [d] ;\nexists (P0:r0 == 0)\n";
    assert_error(
        src,
        ErrorKind::LaneQuarter,
        "4:2: `tcgen05.ld` by warp 4 of thread P0 touches TMEM lanes 32-63 of `d`, but warp 4 can access only lanes 0-31 (warp % 4 picks the lane quarter); use a warp whose quarter holds those lanes",
    );
    parse(&src.replace("warp 4", "warp 5")).expect("warp 5 reaches lanes 32-63");
}

#[test]
fn register_read_before_written() {
    assert_error(
        &ptx("x = 0;", " st.weak x, r5 | ;", "exists (x == 1)"),
        ErrorKind::RegisterBeforeWrite,
        "4:2: register `r5` is read before it is written in thread P0; write it first or give it an initial value (`P0:r5 = 0;`)",
    );
    parse(&ptx("x = 0; P0:r5 = 1;", " st.weak x, r5 | ;", "exists (x == 1)")).expect("initialised register");
}

#[test]
fn tile_token_used_before_defined() {
    let src = "TileIR t\n{ x = [0, 0]; }\nP0@tlb 0, dev 0 {\n  v, <t2> = ld.weak x, <t1>;\n  <t1> = st.weak x, [1, 1];\n}\nexists (0:v == [0, 0])\n";
    assert_error(
        src,
        ErrorKind::TokenBeforeDefinition,
        "4:3: token `<t1>` is used before it is defined in thread P0; define it by an earlier operation (`<t1> = make_token;`)",
    );
}

#[test]
fn undeclared_locations() {
    assert_error(
        &ptx("x = 0;", " ld.weak r0, x | ;", "exists (z == 1)"),
        ErrorKind::UndeclaredLocation,
        "5:9: the condition reads location `z`, which is neither declared nor used by the program",
    );
    assert_error(
        &ptx("", " mbarrier.init.shared::cta.b64 [bar], 1 | ;", "exists (0 == 0)"),
        ErrorKind::UndeclaredLocation,
        "4:2: mbarrier `bar` is not declared; declare it in the initial state, e.g. `bar @ mbarrier cta 0 count 1;`",
    );
    assert_error(
        "PTX t\n{ t @ texture aliases q; }\n P0@cta 0,gpu 0 ;\n tld.weak r0, t ;\nexists (P0:r0 == 0)\n",
        ErrorKind::UndeclaredLocation,
        "2:3: `t` aliases `q`, which is not declared; declare it first (`q = 0;`)",
    );
}

#[test]
fn wrong_location_kind() {
    assert_error(
        &ptx("bar @ mbarrier cta 0 count 1;", " ld.weak r0, bar | ;", "exists (P0:r0 == 0)"),
        ErrorKind::WrongLocationKind,
        "4:2: load address `bar` is an mbarrier, but global or shared memory is needed here",
    );
}

#[test]
fn duplicate_threads_and_locations() {
    assert_error(
        "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P0@cta 1,gpu 0 ;\n ld.weak r0, x | ld.weak r0, x ;\nexists (P0:r0 == 0)\n",
        ErrorKind::DuplicateThread,
        "3:19: thread `P0` is defined twice; name threads P0, P1, ... once each",
    );
    assert_error(
        "PTX t\n{ x = 0; x = 1; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 0)\n",
        ErrorKind::DuplicateLocation,
        "2:10: location `x` is declared twice",
    );
}

#[test]
fn undefined_label() {
    assert_error(
        &ptx("x = 0;", " ld.weak r0, x | ;\n bne r0, 0, L9 | ;", "exists (P0:r0 == 0)"),
        ErrorKind::UndefinedLabel,
        "5:2: branch to `L9`, which is not a label of thread P0",
    );
}

#[test]
fn placement_errors() {
    assert_error(
        "PTX t\n{ x = 0; }\n P0@cta 0,tlb 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 0)\n",
        ErrorKind::BadPlacement,
        "3:11: placement `tlb` cannot be mixed with `cta`/`gpu` of thread P0: a thread is either a PTX thread (gpu, cluster, cta, warp) or a Tile IR tile block (tlb, dev)",
    );
    assert_error(
        "PTX t\n{ x = 0; }\n P0@cta 0,cluster 0,gpu 0 | P1@cta 0,cluster 1,gpu 0 ;\n ld.weak r0, x | ld.weak r0, x ;\nexists (P0:r0 == 0)\n",
        ErrorKind::BadPlacement,
        "3:29: thread `P1` puts CTA 0 in a different cluster than thread `P0` does; a CTA belongs to one cluster",
    );
}

#[test]
fn tile_ir_rules() {
    let tile = |body: &str| format!("TileIR t\n{{ x = [0, 0]; }}\nP0@tlb 0, dev 0 {{\n  {body};\n}}\nexists (x == [0, 0])\n");
    assert_error(
        &tile("st.weak.device x, [1, 1]"),
        ErrorKind::ForbiddenQualifiers,
        "4:3: scope on a weak access: weak `st` takes no scope (Tile IR spec §7.2: operations without a scope are weak)",
    );
    assert_error(
        &tile("st.relaxed x, [1, 1]"),
        ErrorKind::ForbiddenQualifiers,
        "4:3: `st.relaxed` needs a scope: add .tile_block, .device or .sys (Tile IR spec §7.3: any ordering other than weak requires a scope)",
    );
    assert_error(
        &tile("st.weak x[0, 2], [1, 1]"),
        ErrorKind::BadTile,
        "4:3: element 2 of `x` does not exist: the tile has 2 element(s), 0 to 1",
    );
    assert_error(
        &tile("st.weak x[0], [1, 1]"),
        ErrorKind::BadTile,
        "4:3: the value has 2 element(s) but the access touches 1 element(s) of `x`",
    );
    assert_error(
        &tile("v = ld.release.device x"),
        ErrorKind::ForbiddenQualifiers,
        "4:7: `ld` with ordering `release` is not allowed: a load is weak, relaxed or acquire",
    );
    assert_error(
        "PTX t\n{ x = [0, 0]; }\nP0@tlb 0, dev 0 {\n  st.weak x, [1, 1];\n}\nexists (x == [0, 0])\n",
        ErrorKind::WrongThreadKind,
        "3:1: thread `P0` is a Tile IR tile block, but the header says `PTX`; use the header `TileIR t`",
    );
}

#[test]
fn syntax_errors_name_what_was_expected() {
    assert_error("PTX t\n x = 0; }\n", ErrorKind::Syntax, "2:2: expected `{` to open the initial state, found `x`");
    assert_error(
        &ptx("x = 0;", " ld.weak r0, x | ;", "exists (P0:r0 == )"),
        ErrorKind::Syntax,
        "5:18: expected a register `P0:r0`, a location, or a value, found `)`",
    );
    assert_error(
        &ptx("x = 0;", " ld.weak r0, x | ; | ;", "exists (P0:r0 == 0)"),
        ErrorKind::Syntax,
        "4:22: this row has 3 columns but the program has 2 threads",
    );
    assert_error(
        "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nmaybe (P0:r0 == 0)\n",
        ErrorKind::UnknownInstruction,
        "5:1: unknown instruction `maybe`; expected ld, st, atom, red, fence, membar, bar, barrier, mbarrier, cp.async.bulk, tcgen05.*, mov, add, beq, bne, goto, assume (or Dat3M's tld, suld, sust, cold)",
    );
}

#[test]
fn all_errors_are_reported_not_only_the_first() {
    let e = parse(&ptx("x = 0;", " st.weak x, r1 | st.weak x, r2 ;", "exists (x == 1)")).expect_err("two errors");
    assert_eq!(e.0.len(), 2);
    assert_eq!(e.render("a.litmus").lines().count(), 2);
    assert!(e.render("a.litmus").starts_with("a.litmus:4:2: error: register `r1`"));
}

// Issue 21 item 9: the format against its documentation.

#[test]
fn mbarrier_count_0_is_outside_the_isa_range() {
    assert_error(
        &ptx("bar @ mbarrier cta 0 count 0;", " mbarrier.arrive.shared::cta.b64 s, [bar] | ;", "exists (0 == 0)"),
        ErrorKind::BadOperand,
        "2:3: mbarrier `bar` cannot expect 0 arrivals: an expected arrival count is 1 to 1048575 (PTX ISA §9.7.13.15.1)",
    );
    assert_error(
        &ptx("bar @ mbarrier cta 0 count 1048576;", " | ;", "exists (0 == 0)"),
        ErrorKind::BadOperand,
        "2:3: mbarrier `bar` cannot expect 1048576 arrivals: an expected arrival count is 1 to 1048575 (PTX ISA §9.7.13.15.1)",
    );
    assert_error(
        &ptx("bar @ mbarrier cta 0;", " mbarrier.init.shared::cta.b64 [bar], 0 | ;", "exists (0 == 0)"),
        ErrorKind::BadOperand,
        "4:2: mbarrier `bar` cannot expect 0 arrivals: an expected arrival count is 1 to 1048575 (PTX ISA §9.7.13.15.1)",
    );
    assert!(parse(&ptx("bar @ mbarrier cta 0 count 1048575;", " | ;", "exists (0 == 0)")).is_ok());
}

#[test]
fn i64_min_keeps_its_minus_sign() {
    let p = parse(&ptx("x = -9223372036854775808;", " st.weak x, -0x8000000000000000 | ;", "exists (x == -9223372036854775808)"))
        .expect("i64::MIN is a 64-bit integer");
    assert_eq!(p.locations[0].init, Some(tcfuzz_litmus::Value::Int(i64::MIN)));
    assert_error(
        &ptx("x = -9223372036854775809;", " | ;", "exists (x == 0)"),
        ErrorKind::Syntax,
        "2:7: number `-9223372036854775809` is out of range (integers are 64-bit: -9223372036854775808 to 9223372036854775807)",
    );
    // Without a minus, 2^63 is out of range.
    assert_error(
        &ptx("x = 9223372036854775808;", " | ;", "exists (x == 0)"),
        ErrorKind::Syntax,
        "2:7: number `9223372036854775808` is out of range (integers are 64-bit: -9223372036854775808 to 9223372036854775807)",
    );
}

#[test]
fn a_huge_number_is_not_echoed_whole() {
    let digits = "9".repeat(1_000_000);
    let (msg, _) = first_error(&ptx(&format!("x = {digits};"), " | ;", "exists (x == 0)"));
    assert_eq!(
        msg,
        "2:7: number `99999999999999999999999999999999…` (1000000 characters) is out of range (integers are 64-bit: -9223372036854775808 to 9223372036854775807)"
    );
}

#[test]
fn identifiers_are_ascii() {
    assert_error(
        &ptx("x = 0;", " st.weak é, 1 | ;", "exists (x == 0)"),
        ErrorKind::Syntax,
        "4:10: unexpected character `é`: names are ASCII (letters, digits, `_`, `.`, `%`, `$`)",
    );
}

#[test]
fn a_bad_header_shows_invisible_characters() {
    assert_error(
        "\u{200b}PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n",
        ErrorKind::Syntax,
        "1:1: expected a header `PTX name` or `TileIR name`, found `\\u{200b}PTX`",
    );
}

#[test]
fn byte_order_mark_and_cr_line_endings() {
    let lf = "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let program = parse(lf).expect("valid");
    for variant in
        [format!("\u{feff}{lf}"), lf.replace('\n', "\r\n"), lf.replace('\n', "\r"), format!("\u{feff}{}", lf.replace('\n', "\r"))]
    {
        let p = parse(&variant).unwrap_or_else(|e| panic!("{variant:?} is rejected: {e}"));
        assert!(p.same_as(&program), "{variant:?}");
    }
    // Positions count CR-only lines as lines.
    let (msg, kind) = first_error("PTX t\r{ x = 0; }\r P0@cta 0,gpu 0 ;\r frob x, 1 ;\rexists (x == 1)\r");
    assert!(msg.starts_with("4:2: unknown instruction `frob`"), "{msg}");
    assert_eq!(kind, ErrorKind::UnknownInstruction);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let prog = |cond: &str| format!("PTX t\n{{ x = 0; }}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu x, 1 ;\nexists {cond}\n");
    let message = "the final condition is nested too deeply: at most 200 levels of parentheses, `~` and `/\\` or `\\/` operands";
    let parens = format!("{}x == 1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert_error(&prog(&parens), ErrorKind::Syntax, &format!("5:208: {message}"));
    let nots = format!("{}x == 1", "~".repeat(10_000));
    assert_error(&prog(&nots), ErrorKind::Syntax, &format!("5:208: {message}"));
    let chain = vec!["x == 1"; 10_000].join(" /\\ ");
    assert_error(&prog(&format!("({chain})")), ErrorKind::Syntax, &format!("5:2019: {message}"));
    // 200 levels are fine, and print and parse back.
    let deepest = format!("{}x == 1{}", "(~".repeat(100), ")".repeat(100));
    let p = parse(&prog(&deepest)).expect("200 levels");
    let printed = tcfuzz_litmus::print(&p);
    assert!(parse(&printed).expect("reparses").same_as(&p));
    let chain = vec!["x == 1"; 201].join(" \\/ ");
    assert!(parse(&prog(&format!("({chain})"))).is_ok());
}

/// Another CTA's mbarrier is reached only through `.shared::cluster` (PTX ISA §5.1), only by
/// an arrive (with the sink `_`: ptxas rejects a register there) or an expect_tx; a wait has no
/// such form.
#[test]
fn another_ctas_mbarrier_is_reached_through_shared_cluster_only() {
    let cluster = |p1: &str| {
        format!(
            "PTX t\n{{ bar @ mbarrier cta 0 gpu 0 count 1; }}\n P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0 ;\n mbarrier.arrive.shared::cta.b64 s, [bar] | {p1} ;\nexists (0 == 0)\n"
        )
    };
    assert_error(
        &cluster("mbarrier.arrive.release.cluster.shared::cta.b64 s, [bar]"),
        ErrorKind::BadPlacement,
        "4:45: thread P1 (CTA 1) names mbarrier `bar` of CTA 0 through `.shared::cta`, which addresses its own CTA's shared memory only (PTX ISA §5.1, the shared state space); use `mbarrier.arrive...shared::cluster` (an arrive's destination then the sink `_`)",
    );
    assert_error(
        &cluster("mbarrier.arrive.release.cluster.shared::cluster.b64 s, [bar]"),
        ErrorKind::BadOperand,
        "4:45: `mbarrier.arrive` with `.shared::cluster` returns no state: its destination must be the sink `_`, not `s` (PTX ISA §9.7.13.15.13)",
    );
    assert_error(
        &cluster("mbarrier.try_wait.parity.acquire.cluster.b64 p, [bar], 0"),
        ErrorKind::BadPlacement,
        "4:45: thread P1 (CTA 1) names mbarrier `bar` of CTA 0 through a generic address, which must fall in its own CTA's `.shared::cta` window here (PTX ISA §9.7.13.15); `mbarrier.try_wait` has no `.shared::cluster` form: only a thread of CTA 0 can do it",
    );
    for fine in
        ["mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar]", "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [bar], 4"]
    {
        let src = cluster(fine);
        assert!(parse(&src).is_ok(), "{fine} must be accepted:\n{src}");
    }
}
