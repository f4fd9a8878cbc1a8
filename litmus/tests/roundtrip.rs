//! Property tests: printing then parsing gives back the same program, over generated programs that
//! use every instruction family; and no input makes the parser panic.
//!
//! Failing cases print their proptest seed; re-run with `PROPTEST_CASES` / the persisted seed.

use proptest::prelude::*;
use tcfuzz_litmus::{parse, print};

/// Draws from a list of choices made by proptest.
struct Choices<'a> {
    bits: &'a [u32],
    pos: usize,
}

impl Choices<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let v = self.bits.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v as usize % n.max(1)
    }
    fn one<'b>(&mut self, xs: &[&'b str]) -> &'b str {
        xs[self.pick(xs.len())]
    }
}

const PTX_INSTRS: &[&str] = &[
    "ld.weak R, L",
    "ld.relaxed.SCOPE R, L",
    "ld.acquire.SCOPE.global.u32 R, [L]",
    "ld.volatile R, L",
    "st.weak L, V",
    "st.relaxed.SCOPE L, V",
    "st.release.SCOPE.b32 [L], V",
    "atom.relaxed.SCOPE.add R, L, V",
    "atom.acq_rel.SCOPE.exch R, L, V",
    "atom.acquire.cas R, L, V, V",
    "atom.add.u32 R, L, V",
    "red.release.SCOPE.add L, V",
    "red.relaxed.SCOPE.max L, V",
    "fence.sc.SCOPE",
    "fence.acq_rel.SCOPE",
    "membar.gl",
    "fence.proxy.alias",
    "fence.proxy.async",
    "fence.proxy.async.shared::cta",
    "bar.cta.sync 0",
    "barrier.sync.aligned 1, 64",
    "bar.arrive 1, 64",
    "mov R, V",
    "ld R, 7",
    "add R, R, V",
    "mbarrier.arrive.release.cta.shared::cta.b64 R, [bar]",
    "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 _, [bar], 16",
    "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 R, [bar], 0",
    "await mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 R, [bar], 1",
    "mbarrier.test_wait.shared.b64 R, [bar], R",
    "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar]",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [x], 16, [bar]",
    "TC",
];

const TC_INSTRS: &[&str] = &[
    "tcgen05.alloc.cta_group::G.sync.aligned.shared::cta.b32 [s], 32",
    "tcgen05.dealloc.cta_group::G.sync.aligned.b32 R, 32",
    "tcgen05.dealloc.cta_group::G.sync.aligned.b32 [d], 32",
    "tcgen05.relinquish_alloc_permit.cta_group::G.sync.aligned",
    "tcgen05.mma.cta_group::G.kind::f16 [d], [s], [s], 5, 1",
    "tcgen05.mma.cta_group::G.kind::tf32 [d], [d], [s], 5, R",
    "tcgen05.cp.cta_group::G.128x256b [d], [s]",
    "tcgen05.cp.cta_group::G.4x256b [d], [s]",
    "tcgen05.shift.cta_group::G.down [d]",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 R, [d]",
    "tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32 [d], V",
    "tcgen05.commit.cta_group::G.mbarrier::arrive::one.shared::cluster.b64 [bar]",
    "tcgen05.commit.cta_group::G.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], MASK",
    "tcgen05.wait::ld.sync.aligned",
    "tcgen05.wait::st.sync.aligned",
    "tcgen05.fence::before_thread_sync",
    "tcgen05.fence::after_thread_sync",
];

const TILE_INSTRS: &[&str] = &[
    "v, <T> = ld.weak tx",
    "v = ld.relaxed.device tx[1, 0], <D>",
    "<T> = st.weak tx, [1, 2]",
    "st.release.sys tx[0, 0], [3, 4], <D>",
    "<T> = st.relaxed.tile_block tx[1], [5]",
    "v, <T> = atom.acq_rel.device.add tx, [1, 1], <D>",
    "<T> = make_token",
    "<T> = join_tokens <D>, <D>",
];

/// A valid program as text, built from the choices.
fn program_text(c: &mut Choices) -> String {
    let tile = c.pick(4) == 0;
    let n = 1 + c.pick(3);
    let mut s = String::new();
    if tile {
        s.push_str("TileIR gen\n{ tx = [0, 0]; }\n");
        let mut cond = Vec::new();
        for t in 0..n {
            s.push_str(&format!("P{t}@tlb {t}, dev 0 {{\n"));
            let mut tokens: Vec<String> = Vec::new();
            let mut has_v = false;
            for k in 0..c.pick(6) {
                let mut ins = c.one(TILE_INSTRS).to_string();
                if ins.contains("<D>") && tokens.is_empty() {
                    continue;
                }
                while ins.contains("<D>") {
                    let d = tokens[c.pick(tokens.len())].clone();
                    ins = ins.replacen("<D>", &format!("<{d}>"), 1);
                }
                if ins.contains("<T>") {
                    let name = format!("t{k}");
                    ins = ins.replace("<T>", &format!("<{name}>"));
                    tokens.push(name);
                }
                if ins.starts_with("v") {
                    let v = format!("v{k}");
                    ins = ins.replacen('v', &v, 1);
                    if !has_v {
                        cond.push(format!("{t}:{v} == [0, 0]"));
                        has_v = true;
                    }
                }
                s.push_str(&format!("  {ins};\n"));
            }
            s.push_str("}\n");
        }
        cond.push("tx == [1, 2]".to_string());
        let op = if c.pick(2) == 0 { " /\\ " } else { " \\/ " };
        s.push_str(&format!("forall ({})\n", cond.join(op)));
        return s;
    }
    let two_ctas = n >= 2;
    s.push_str("PTX gen\n\"a generated program\"\n{\n x = 0; y = 2;\n s @ shared cta 0 = 0;\n bar @ mbarrier cta 0 count 1;\n d @ tmem cta 0 lanes 0-31 cols 0-31 = 0;\n");
    if two_ctas {
        // CTA 1's mbarrier at `bar`'s offset, so that a multicast commit may signal both CTAs.
        s.push_str(" bar1 @ mbarrier cta 1 count 1;\n");
    }
    for t in 0..n {
        s.push_str(&format!(" P{t}:r0 = 0; P{t}:r1 = 1;\n"));
    }
    s.push_str("}\n");
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut headers = Vec::new();
    for t in 0..n {
        let cta = if two_ctas { t % 2 } else { 0 };
        let warp = if c.pick(2) == 0 { String::new() } else { "warp 4,".to_string() };
        headers.push(format!("P{t}@{warp}cta {cta},cluster 0,gpu 0"));
        let mut body = Vec::new();
        for _ in 0..c.pick(7) {
            let mut ins = c.one(PTX_INSTRS).to_string();
            if ins == "TC" {
                if cta != 0 {
                    continue;
                }
                ins = c.one(TC_INSTRS).to_string();
            }
            // `bar` is CTA 0's: another CTA reaches it through `.shared::cluster` only.
            if cta != 0 && ins.contains("mbarrier.") && !ins.contains(".shared::cluster.b64") {
                continue;
            }
            // A multicast mask names only CTAs of the cluster with an mbarrier at `bar`'s offset.
            let ins = ins.replace("MASK", if two_ctas { "3" } else { "1" });
            let ins = ins
                .replace("SCOPE", c.one(&["cta", "cluster", "gpu", "sys"]))
                .replace("G", if two_ctas && c.pick(2) == 0 { "2" } else { "1" })
                .replace('L', c.one(&["x", "y", "s"]))
                .replace('R', c.one(&["r0", "r1"]))
                .replace('V', c.one(&["r1", "1", "-3", "0x10"]));
            body.push(ins);
        }
        if c.pick(3) == 0 {
            body.insert(0, "LC0:".to_string());
            body.push("bne r0, 0, LC0".to_string());
            body.push("goto LC1".to_string());
            body.push("LC1:".to_string());
        }
        cols.push(body);
    }
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    s.push_str(&headers.join(" | "));
    s.push_str(" ;\n");
    for r in 0..rows {
        let cells: Vec<String> = cols.iter().map(|col| col.get(r).cloned().unwrap_or_default()).collect();
        s.push_str(&cells.join(" | "));
        s.push_str(" ;\n");
    }
    let q = c.one(&["exists", "~exists", "forall"]);
    s.push_str(&format!("{q} (P0:r0 == 1 /\\ ~(x != 2 \\/ y = 0) \\/ P{}:r1 == P0:r0 /\\ true)\n", n - 1));
    s
}

/// `text` with comments added from the choices: `//` and `(* *)` comments at the ends of lines and
/// on lines of their own (never inside the header line or a doc string).
fn with_comments(text: &str, bits: &[u32]) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let b = bits.get(i % bits.len().max(1)).copied().unwrap_or(0) >> 7;
        let plain = i > 0 && !line.starts_with('"');
        if plain && b % 7 == 1 {
            out.push_str(&format!("// before {i}\n"));
        }
        if plain && b % 11 == 2 {
            out.push_str(&format!("(* block\n {i} *)\n"));
        }
        out.push_str(line);
        if plain && b % 5 == 3 {
            out.push_str(&format!(" // after {i}"));
        } else if plain && b % 5 == 4 {
            out.push_str(&format!(" (* after {i} *)"));
        }
        out.push('\n');
    }
    out
}

proptest! {
    // Failures print the seed and the shrunk case; nothing is written into the source tree.
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn printing_then_parsing_gives_the_same_program(bits in prop::collection::vec(any::<u32>(), 64..256)) {
        let text = program_text(&mut Choices { bits: &bits, pos: 0 });
        let program = match parse(&text) {
            Ok(p) => p,
            Err(e) => return Err(TestCaseError::fail(format!("generated program rejected:\n{}\n{text}", e.render("<generated>")))),
        };
        let printed = print(&program);
        let reparsed = parse(&printed).map_err(|e| TestCaseError::fail(format!("printed program rejected:\n{}\n{printed}", e.render("<printed>"))))?;
        prop_assert!(reparsed.same_as(&program), "round trip changed the program:\n{text}\n---\n{printed}");
        // Printing is a fixed point.
        prop_assert_eq!(print(&reparsed), printed);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_valid_programs_never_panic_and_round_trip_when_accepted(
        bits in prop::collection::vec(any::<u32>(), 64..256),
        edits in prop::collection::vec((any::<u16>(), any::<u16>(), any::<u8>()), 1..6),
    ) {
        let text = with_comments(&program_text(&mut Choices { bits: &bits, pos: 0 }), &bits);
        let mut bytes = text.into_bytes();
        const SPICE: &[u8] = b"|;:,[]<>{}()=~/\\.-0123456789 \nPxyz\"@*\r";
        // Shapes byte edits rarely make: a byte-order mark, comment and string delimiters, the
        // extreme integers, deep nesting, a name that is not ASCII.
        const SHAPES: &[&str] = &["\u{feff}", "(*", "*)", "//", "\"", "-9223372036854775808", "99999999999999999999", "((((((((((", "~~~~~~~~", "é"];
        for (at, len, b) in edits {
            if bytes.is_empty() { break; }
            let at = at as usize % bytes.len();
            match b % 4 {
                0 => { let end = (at + len as usize % 8).min(bytes.len()); bytes.drain(at..end); }
                1 => bytes.insert(at, SPICE[b as usize % SPICE.len()]),
                2 => bytes[at] = SPICE[b as usize % SPICE.len()],
                _ => { let shape = SHAPES[len as usize % SHAPES.len()].as_bytes(); bytes.splice(at..at, shape.iter().copied()); }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(program) = parse(&text) {
            let printed = print(&program);
            let reparsed = parse(&printed).map_err(|e| TestCaseError::fail(format!("printed program rejected:\n{}\n{text}\n---\n{printed}", e.render("<printed>"))))?;
            prop_assert!(reparsed.same_as(&program), "round trip changed the program:\n{text}\n---\n{printed}");
            prop_assert_eq!(print(&reparsed), printed);
        }
    }

    #[test]
    fn generated_programs_with_comments_round_trip(bits in prop::collection::vec(any::<u32>(), 64..256)) {
        let text = with_comments(&program_text(&mut Choices { bits: &bits, pos: 0 }), &bits);
        let program = parse(&text).map_err(|e| TestCaseError::fail(format!("rejected:\n{}\n{text}", e.render("<generated>"))))?;
        let printed = print(&program);
        let reparsed = parse(&printed).map_err(|e| TestCaseError::fail(format!("printed program rejected:\n{}\n{printed}", e.render("<printed>"))))?;
        prop_assert!(reparsed.same_as(&program), "round trip changed the program:\n{text}\n---\n{printed}");
        prop_assert_eq!(print(&reparsed), printed);
        let kept = |p: &tcfuzz_litmus::Program| { let mut t: Vec<String> = p.comments.iter().map(|c| c.text.clone()).collect(); t.sort(); t };
        prop_assert_eq!(kept(&reparsed), kept(&program));
    }
}

/// Issue 21 item 10: `fmt` keeps every comment, each with the item it belongs to.
#[test]
fn comments_are_kept_where_they_belong() {
    let src = "(* a block comment
   before the header *)
// expect ptx: Sometimes
PTX SB+comments
\"doc\"
{ // opening
  x = 0; // x
  (* before y *) y = 0;
  P1:r0 = 5; // reg
} // closed
// before threads
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ; // header row
 st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ; // row 0
// before row 1
 ld.relaxed.gpu r0, y | ld.relaxed.gpu (* mid *) r0, x ;
 | ld.relaxed.gpu r1, x ; // only P1
exists (P0:r0 == 0 /\\ P1:r0 == 0) // cond
// the end
";
    let expected = "(* a block comment
   before the header *)
// expect ptx: Sometimes
PTX SB+comments
\"doc\"
{ // opening
  x = 0; // x
  (* before y *)
  y = 0;
  P1:r0 = 5; // reg
} // closed
 // before threads
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0       ; // header row
 st.relaxed.gpu x, 1  | st.relaxed.gpu y, 1  ; // row 0
 // before row 1
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x ; (* mid *)
                      | ld.relaxed.gpu r1, x ; // only P1
exists (P0:r0 == 0 /\\ P1:r0 == 0) // cond
// the end
";
    let program = parse(src).expect("valid");
    let printed = print(&program);
    assert_eq!(printed, expected);
    assert!(parse(&printed).expect("reparses").same_as(&program));

    // Blocks keep theirs per statement, and two `//` comments on one row go on lines of their own.
    let tile = "TileIR t\n{\n  x = [0];\n}\nP0@tlb 0, dev 0 { // block\n  // first\n  <t> = st.weak x, [1]; // stored\n  // last\n} // done\nexists (x == [1])\n";
    let program = parse(tile).expect("valid");
    assert_eq!(print(&program), tile);
    let rows = "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ; // a\n | st.weak x, 2 ; // b\nexists (x == 1)\n";
    let program = parse(rows).expect("valid");
    let printed = print(&program);
    assert_eq!(
        printed,
        "PTX t\n{\n  x = 0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n // a\n // b\n st.weak x, 1   | st.weak x, 2   ;\nexists (x == 1)\n"
    );
    assert!(parse(&printed).expect("reparses").same_as(&program));
}

/// Issue 26 item 1: a real Dat3M file's doc string quotes a tool transcript with `"` of its own.
/// Dat3M's grammar (`LitmusPTX.g4`, rule `main`) skips every token between the test name and the
/// first `{`; so do we, keeping the text.
#[test]
fn dat3m_doc_string_with_quotes_of_its_own_loads() {
    let src = "PTX MP-transcript\n\"Found by a run: $ tool --check\n output: \"forbidden\" as expected (\"MP\" shape)\"\n{\nx=0; y=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.weak x, 1 | ld.weak r0, y ;\n st.weak y, 1 | ld.weak r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    let program = parse(src).expect("Dat3M loads it");
    assert_eq!(program.docs, vec!["Found by a run: $ tool --check\n output: \"forbidden\" as expected (\"MP\" shape)".to_string()]);
    let printed = print(&program);
    assert!(
        printed
            .starts_with("PTX MP-transcript\n\"Found by a run: $ tool --check\n output: \"forbidden\" as expected (\"MP\" shape)\"\n{\n")
    );
    assert!(parse(&printed).expect("reparses").same_as(&program));

    // An odd number of quotes, and words that are no doc string: skipped as Dat3M does, kept as text.
    let src = "PTX odd\n\"He said \"hi\nstray words\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let program = parse(src).expect("Dat3M loads it");
    assert!(program.docs.is_empty());
    let printed = print(&program);
    assert!(printed.starts_with("PTX odd\n\"He said \"hi\nstray words\n{\n"), "{printed}");
    assert!(parse(&printed).expect("reparses").same_as(&program));
}

/// Issue 21 item 2: any program `parse` accepts prints, however wide a cell.
#[test]
fn a_cell_wider_than_65535_characters_prints() {
    let name = "x".repeat(70_000);
    let src = format!(
        "PTX t\n{{ {name} = 0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu {name}, 1 | ld.weak r0, {name} ;\nexists (P1:r0 == 1)\n"
    );
    let program = parse(&src).expect("valid");
    let printed = print(&program);
    assert!(printed.contains(&format!(" st.relaxed.gpu {name}, 1 | ld.weak r0, {name} ;\n")));
    assert!(printed.contains(&format!(" P0@cta 0,gpu 0{} | P1@cta 1,gpu 0", " ".repeat(70_000 + 18 - 14))));
    assert!(parse(&printed).expect("reparses").same_as(&program));
}

/// Issue 21 item 9: `FORMAT.md` allows comments anywhere outside doc strings, the header's too.
#[test]
fn comments_before_the_header() {
    let src =
        "(* herd style *)\n(* over\n   lines *) // and a line\nPTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let program = parse(src).expect("valid");
    assert_eq!(program.comments.len(), 3);
    let printed = print(&program);
    assert!(printed.starts_with("(* herd style *)\n(* over\n   lines *)\n// and a line\nPTX t\n"), "{printed}");
    assert!(parse(&printed).expect("reparses").same_as(&program));
    let e = parse("(* never closed\nPTX t\n").expect_err("unterminated");
    assert_eq!(e.0[0].message, "unterminated comment: `(*` without a closing `*)`");
}

/// Regression (found by `mutated_valid_programs_never_panic_and_round_trip_when_accepted`): a
/// trailing block comment with a line break in it, followed by a `//` comment, printed both at
/// the end of the row; parsed again, the `//` comment started on a later line than the row and
/// became a comment of its own line.
#[test]
fn a_trailing_block_comment_over_two_lines_keeps_the_comment_after_it() {
    let text =
        "PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st x, 1 (*a | ld r0, y ;\n b *) | ld r0, x ; // after\nexists (true)\n";
    let program = parse(text).expect("parses");
    let printed = print(&program);
    let reparsed = parse(&printed).expect("the printed program parses");
    assert!(reparsed.same_as(&program), "round trip changed the program:\n{text}\n---\n{printed}");
    assert_eq!(print(&reparsed), printed);
}

/// Regression (found by `mutated_valid_programs_never_panic_and_round_trip_when_accepted`): a
/// text before the initial state that does not lex (a `(*` cut by a lone `\r`, a line end) was
/// split at its first `{`, inside a `//` comment: the comment's start became skipped text, which,
/// printed, read back as a comment. The `{` of a `//` comment is no split point.
#[test]
fn a_brace_in_a_line_comment_before_the_initial_state_is_no_split_point() {
    let text = "TileIR gen\n// before 1={ tx = [0, 0]; } (*\r after 1 *)\n// before 2\n(* block\n 2 *)\nP0@tlb 0, dev 0 { // after 2\n// before 3\n} // after 3\nforall (tx == [1, 2]) (* after 4 *)\n";
    if let Ok(program) = parse(text) {
        let printed = print(&program);
        let reparsed = parse(&printed).expect("the printed program parses");
        assert!(reparsed.same_as(&program), "round trip changed the program:\n{text}\n---\n{printed}");
    }
    // Where the text after the comment holds the initial state, it is found there.
    let text = "PTX t\n\"odd \" quotes\n// not here {\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let program = parse(text).expect("parses");
    let printed = print(&program);
    assert!(parse(&printed).expect("reparses").same_as(&program), "{printed}");
}

#[test]
fn a_brace_in_a_block_comment_before_the_initial_state_is_no_split_point() {
    let text = "PTX t\n\"odd \" quotes\n(* not here {\n still not *)\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    let program = parse(text).expect("parses");
    let printed = print(&program);
    assert!(parse(&printed).expect("reparses").same_as(&program), "{printed}");
    // An unterminated `(*` holds every brace after it: the lexer's error stands.
    let err = parse("PTX t\n\"odd \" quotes\n(* open {\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n")
        .expect_err("an unterminated comment");
    assert!(err.to_string().contains("unterminated"), "{err}");
}
