//! The program structure: header, doc strings, initial state, threads (columns or blocks), final
//! condition. Instructions are parsed by `instr`.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::ast::*;
use crate::error::{Diagnostic, Diagnostics, ErrorKind};
use crate::instr;
use crate::lexer::{LexComment, Lexed, Tok, Token, lex};
use crate::printer;

/// A cursor over a slice of tokens, with the span to blame when input ends early.
pub(crate) struct Cursor<'a> {
    toks: &'a [Token],
    pos: usize,
    end: Span,
}

pub(crate) type PResult<T> = Result<T, Diagnostic>;

impl<'a> Cursor<'a> {
    pub fn new(toks: &'a [Token], end: Span) -> Self {
        Cursor { toks, pos: 0, end }
    }
    pub fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    pub fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }
    pub fn span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end, |t| t.span)
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    pub fn bump(&mut self) -> Option<&'a Token> {
        let t = self.toks.get(self.pos);
        if t.is_some() {
            self.pos += 1;
        }
        t
    }
    pub fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub fn skip_newlines(&mut self) {
        while self.eat(&Tok::Newline) {}
    }
    fn found(&self) -> String {
        self.peek().map_or("end of input".to_string(), Tok::describe)
    }
    pub fn error(&self, what: &str) -> Diagnostic {
        Diagnostic::new(self.span(), ErrorKind::Syntax, format!("expected {what}, found {}", self.found()))
    }
    pub fn expect(&mut self, tok: &Tok, what: &str) -> PResult<Span> {
        let span = self.span();
        if self.eat(tok) { Ok(span) } else { Err(self.error(what)) }
    }
    pub fn word(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let span = self.span();
                self.pos += 1;
                Ok((w.clone(), span))
            }
            _ => Err(self.error(what)),
        }
    }
    /// An integer, possibly negative.
    pub fn int(&mut self, what: &str) -> PResult<i64> {
        let neg = self.eat(&Tok::Minus);
        match self.peek() {
            Some(Tok::Int(v)) => {
                self.pos += 1;
                Ok(if neg { v.wrapping_neg() } else { *v })
            }
            _ => Err(self.error(what)),
        }
    }
    pub fn u32(&mut self, what: &str) -> PResult<u32> {
        let span = self.span();
        let v = self.int(what)?;
        u32::try_from(v)
            .map_err(|_| Diagnostic::new(span, ErrorKind::Syntax, format!("expected {what}, found `{v}` (must be 0 to {})", u32::MAX)))
    }
    /// A value: an integer or a tile `[1, 2]`.
    pub fn value(&mut self, what: &str) -> PResult<Value> {
        if self.eat(&Tok::LBracket) { Ok(Value::Tile(self.int_list()?)) } else { Ok(Value::Int(self.int(what)?)) }
    }
    /// The rest of `[a, b, ...]` after the `[`.
    pub fn int_list(&mut self) -> PResult<Vec<i64>> {
        let mut out = Vec::new();
        if self.eat(&Tok::RBracket) {
            return Ok(out);
        }
        loop {
            out.push(self.int("an integer")?);
            if self.eat(&Tok::RBracket) {
                return Ok(out);
            }
            self.expect(&Tok::Comma, "`,` or `]`")?;
        }
    }
}

pub fn parse(src: &str) -> Result<Program, Diagnostics> {
    parse_program(&normalize(src)).map_err(Diagnostics::from)
}

/// The text as the parser reads it: without a leading UTF-8 byte-order mark, and with `\r\n` and
/// lone `\r` line endings as `\n` (positions then count lines as an editor does).
fn normalize(src: &str) -> Cow<'_, str> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    if src.contains('\r') { Cow::Owned(src.replace("\r\n", "\n").replace('\r', "\n")) } else { Cow::Borrowed(src) }
}

/// The most levels of parentheses, `~` and `/\` / `\/` operands the final condition may nest:
/// the condition is a tree that printing, comparing and evaluating walk recursively, so its depth
/// must stay far from the stack's limit (a test thread's 2 MiB in a debug build).
pub const MAX_CONDITION_DEPTH: usize = 200;

/// The items comments attach to, by where they start in the source.
#[derive(Default)]
struct Anchors(Vec<(Span, CommentPlace)>);

impl Anchors {
    fn push(&mut self, span: Span, place: CommentPlace) {
        self.0.push((span, place));
    }
}

fn parse_program(src: &str) -> PResult<Program> {
    let (mut comments, header) = parse_header(src)?;
    let (arch, name, offset, line_no) = header;
    let body_start = Span { line: line_no + 1, col: 1 };
    let body = &src[offset..];
    let prelude = parse_prelude(body, body_start)?;
    comments.extend(prelude.comments);
    let toks = prelude.lexed.tokens;
    let end = toks.last().map_or(body_start, |t| Span { line: t.span.line + 1, col: 1 });
    let mut c = Cursor::new(&toks, end);
    let mut anchors = Anchors::default();
    anchors.push(c.expect(&Tok::LBrace, "`{` to open the initial state")?, CommentPlace::InitStart);
    let (locations, reg_inits) = parse_init(&mut c, &mut anchors)?;
    c.skip_newlines();
    let threads = parse_threads(&mut c, &mut anchors)?;
    let condition = parse_condition(&mut c, &mut anchors)?;
    let mut program = Program { comments: Vec::new(), arch, name, docs: prelude.docs, locations, reg_inits, threads, condition };
    comments.extend(attach(&prelude.lexed.comments, anchors));
    program.comments = canonical_comments(&program, comments);
    Ok(program)
}

/// The comments before the header, and the header: architecture, name, the offset of the line
/// after it and its line number. The header line is free text after the architecture keyword
/// (names contain `+`, `-`, ...).
#[allow(clippy::type_complexity)]
fn parse_header(src: &str) -> PResult<(Vec<Comment>, (Arch, String, usize, u32))> {
    let mut comments = Vec::new();
    let (mut offset, mut line_no, mut col) = (0, 1u32, 1u32);
    loop {
        let rest = &src[offset..];
        let Some(c) = rest.chars().next() else {
            return Err(Diagnostic::new(
                Span { line: line_no, col: 1 },
                ErrorKind::Syntax,
                "empty file: expected a header line `PTX name` or `TileIR name`",
            ));
        };
        if c == '\n' {
            (offset, line_no, col) = (offset + 1, line_no + 1, 1);
        } else if c.is_whitespace() {
            (offset, col) = (offset + c.len_utf8(), col + 1);
        } else if let Some(text) = rest.strip_prefix("//") {
            let text = text.split('\n').next().unwrap_or_default();
            comments.push(Comment::header(text));
            offset += 2 + text.len();
        } else if rest.starts_with("(*") {
            let span = Span { line: line_no, col };
            let Some(close) = rest.find("*)").filter(|&i| i >= 2) else {
                return Err(Diagnostic::new(span, ErrorKind::Syntax, "unterminated comment: `(*` without a closing `*)`"));
            };
            let text = &rest[2..close];
            comments.push(Comment { style: CommentStyle::Block, ..Comment::header(text) });
            offset += close + 2;
            let lines = text.matches('\n').count() as u32;
            line_no += lines;
            col = if lines == 0 {
                col + 4 + text.chars().count() as u32
            } else {
                3 + text.rsplit('\n').next().unwrap_or_default().chars().count() as u32
            };
        } else {
            break;
        }
    }
    let line = src[offset..].split_inclusive('\n').next().unwrap_or_default();
    let span = Span { line: line_no, col };
    let trimmed = line.trim();
    let (kw, rest) = trimmed.split_once(char::is_whitespace).unwrap_or((trimmed, ""));
    let arch = match kw {
        "PTX" => Arch::Ptx,
        "TileIR" => Arch::TileIr,
        other => {
            return Err(Diagnostic::new(
                span,
                ErrorKind::Syntax,
                format!("expected a header `PTX name` or `TileIR name`, found `{}`", other.escape_debug()),
            ));
        }
    };
    let name = rest.trim();
    if name.is_empty() {
        return Err(Diagnostic::new(span, ErrorKind::Syntax, format!("expected a test name after `{kw}`")));
    }
    Ok((comments, (arch, name.to_string(), offset + line.len(), line_no)))
}

/// What lies between the header line and the initial state, and the tokens from its `{` on.
struct Prelude {
    docs: Vec<String>,
    /// Text Dat3M skips, kept as a [`CommentStyle::Skipped`] comment.
    comments: Vec<Comment>,
    lexed: Lexed,
}

/// Doc strings, then `{`. Where the text before the first `{` is anything else (a doc string with
/// quotes of its own, stray words), it is read as Dat3M reads it: its grammar (`LitmusPTX.g4`,
/// rule `main`) skips every token between the test name and the first `{`. That text is kept as
/// one doc string when it is one plain string (`"... "quoted" ..."`), and as skipped text
/// otherwise.
fn parse_prelude(body: &str, start: Span) -> PResult<Prelude> {
    let split = match lex(body, start) {
        Ok(mut lexed) => {
            let brace = lexed.tokens.iter().position(|t| t.tok == Tok::LBrace);
            let before = &lexed.tokens[..brace.unwrap_or(lexed.tokens.len())];
            let docs_only = before.iter().all(|t| matches!(t.tok, Tok::Str(_) | Tok::Newline));
            match brace {
                Some(b) if docs_only => {
                    let docs = before.iter().filter_map(|t| if let Tok::Str(s) = &t.tok { Some(s.clone()) } else { None }).collect();
                    lexed.tokens.drain(..b);
                    return Ok(Prelude { docs, comments: Vec::new(), lexed });
                }
                Some(b) => offset_of(body, start, lexed.tokens[b].span),
                None => {
                    let mut c = Cursor::new(&lexed.tokens, lexed.tokens.last().map_or(start, |t| t.span));
                    while matches!(c.peek(), Some(Tok::Str(_) | Tok::Newline)) {
                        c.bump();
                    }
                    return Err(c.error("`{` to open the initial state"));
                }
            }
        }
        // A doc string with an odd number of quotes of its own does not lex.
        Err(e) => first_brace_outside_comments(body).ok_or(e)?,
    };
    let region = body[..split].trim();
    let lexed = lex(&body[split..], position_after(start, &body[..split]))?;
    let plain = region.len() >= 2 && region.starts_with('"') && region.ends_with('"');
    let (docs, comments) = if plain {
        (vec![region[1..region.len() - 1].to_string()], Vec::new())
    } else {
        let skipped = Comment { text: region.to_string(), style: CommentStyle::Skipped, place: CommentPlace::InitStart, trailing: false };
        (Vec::new(), vec![skipped])
    };
    Ok(Prelude { docs, comments, lexed })
}

/// The byte offset of the first `{` of `text` that no comment holds (`//` to the end of its
/// line, `(* … *)`): where the lexer, had the text lexed, would have found it. (A `{` inside a
/// comment, taken for the initial state's, left the comment's start as skipped text that
/// printed, it read back as a comment.) `None` past an unterminated `(*`, as the lexer finds no
/// brace there either.
fn first_brace_outside_comments(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'{', _) => return Some(i),
            (b'/', Some(b'/')) => i = text[i..].find('\n').map_or(bytes.len(), |n| i + n),
            (b'(', Some(b'*')) => i = text[i + 2..].find("*)").map(|n| i + 2 + n + 2)?,
            _ => i += 1,
        }
    }
    None
}

/// The byte offset in `text` (which starts at `start`) of the character at `at`.
fn offset_of(text: &str, start: Span, at: Span) -> usize {
    let (mut line, mut col) = (start.line, start.col);
    for (i, ch) in text.char_indices() {
        if (line, col) == (at.line, at.col) {
            return i;
        }
        if ch == '\n' {
            (line, col) = (line + 1, 1);
        } else {
            col += 1;
        }
    }
    text.len()
}

/// The position right after `text`, which starts at `start`.
fn position_after(start: Span, text: &str) -> Span {
    match text.rsplit_once('\n') {
        Some((before, last)) => Span { line: start.line + before.matches('\n').count() as u32 + 1, col: 1 + last.chars().count() as u32 },
        None => Span { line: start.line, col: start.col + text.chars().count() as u32 },
    }
}

/// Attaches each comment to an item: one that follows a token on its line to the item that
/// token belongs to (the last item starting before it), any other to the next item (or the end).
fn attach(found: &[LexComment], mut anchors: Anchors) -> Vec<Comment> {
    anchors.0.sort_by_key(|(span, _)| *span);
    let anchors = anchors.0;
    found
        .iter()
        .map(|c| {
            let after = anchors.partition_point(|(span, _)| *span < c.span);
            let (place, trailing) = match (c.trailing, after.checked_sub(1)) {
                (true, Some(before)) => (anchors[before].1, true),
                _ => (anchors.get(after).map_or(CommentPlace::End, |(_, p)| *p), false),
            };
            Comment { text: c.text.clone(), style: c.style, place, trailing }
        })
        .collect()
}

/// The comments as printing and parsing again gives them back, in the printer's order: in rows,
/// a statement's comments belong to its row (named by its first thread, or its last for
/// trailing comments, as they are found again), trailing comments that cannot share one line
/// (a `//` comment followed by another) go on lines of their own, and the order is the printer's.
fn canonical_comments(p: &Program, mut comments: Vec<Comment>) -> Vec<Comment> {
    let rows = printer::in_rows(p);
    let by_row = |comments: &mut Vec<Comment>| {
        if !rows {
            return;
        }
        let last_thread = p.threads.len().saturating_sub(1);
        let row_thread = |index: usize, trailing: bool| {
            let mut having = p.threads.iter().enumerate().filter(|(_, t)| t.body.len() > index).map(|(i, _)| i);
            if trailing { having.next_back() } else { having.next() }
        };
        for c in comments {
            match c.place {
                CommentPlace::Thread(_) => c.place = CommentPlace::Thread(if c.trailing { last_thread } else { 0 }),
                CommentPlace::Stmt { index, .. } => {
                    if let Some(thread) = row_thread(index, c.trailing) {
                        c.place = CommentPlace::Stmt { thread, index };
                    }
                }
                CommentPlace::ThreadEnd(_) => {
                    c.place = CommentPlace::Condition;
                    c.trailing = false;
                }
                _ => {}
            }
        }
    };
    by_row(&mut comments);
    let places: BTreeSet<CommentPlace> = comments.iter().filter(|c| c.trailing).map(|c| c.place).collect();
    for place in places {
        let trailing: Vec<&Comment> = comments.iter().filter(|c| c.trailing && c.place == place).collect();
        if !printer::fits_one_line(&trailing) {
            for c in comments.iter_mut().filter(|c| c.trailing && c.place == place) {
                c.trailing = false;
            }
        }
    }
    // Trailing comments moved to lines of their own now lead their row.
    by_row(&mut comments);
    comments.sort_by_key(|c| (printer::print_order(c.place, rows), c.trailing));
    comments
}

fn parse_init(c: &mut Cursor, anchors: &mut Anchors) -> PResult<(Vec<Location>, Vec<RegInit>)> {
    let mut locations = Vec::new();
    let mut regs = Vec::new();
    loop {
        while matches!(c.peek(), Some(Tok::Newline | Tok::Semi)) {
            c.bump();
        }
        let span = c.span();
        if c.eat(&Tok::RBrace) {
            anchors.push(span, CommentPlace::InitEnd);
            return Ok((locations, regs));
        }
        // `P0:r0 = v` or `0:r0 = v`
        let thread = match (c.peek(), c.peek_at(1)) {
            (Some(Tok::Word(w)), Some(Tok::Colon)) => Some(w.clone()),
            (Some(Tok::Int(i)), Some(Tok::Colon)) => Some(i.to_string()),
            _ => None,
        };
        if let Some(thread) = thread {
            anchors.push(span, CommentPlace::RegInit(regs.len()));
            c.bump();
            c.bump();
            let (reg, _) = c.word("a register name")?;
            c.expect(&Tok::Assign, "`=`")?;
            let value = c.value("an initial value")?;
            regs.push(RegInit { thread, reg, value, span });
            continue;
        }
        let (name, _) = c.word("a location (`x = 0;`), a register (`P0:r0 = 0;`) or `}`")?;
        anchors.push(span, CommentPlace::Location(locations.len()));
        if c.eat(&Tok::Assign) {
            let value = c.value("an initial value")?;
            locations.push(Location { name, kind: LocationKind::Global, init: Some(value), span });
            continue;
        }
        c.expect(&Tok::At, "`=` or `@` after a location name")?;
        let (kind_word, kind_span) = c.word("a location kind (`shared`, `mbarrier`, `tmem`, or an alias proxy)")?;
        let kind = match kind_word.as_str() {
            "generic" | "texture" | "surface" | "constant" => {
                let proxy = match kind_word.as_str() {
                    "generic" => AliasProxy::Generic,
                    "texture" => AliasProxy::Texture,
                    "surface" => AliasProxy::Surface,
                    _ => AliasProxy::Constant,
                };
                let (kw, _) = c.word("`aliases`")?;
                if kw != "aliases" {
                    return Err(Diagnostic::new(span, ErrorKind::Syntax, format!("expected `aliases` after `{kind_word}`, found `{kw}`")));
                }
                let (target, _) = c.word("the aliased location")?;
                LocationKind::Alias { proxy, target }
            }
            "shared" | "mbarrier" | "tmem" => {
                let attrs = parse_attrs(c, &kind_word)?;
                let cta = attrs.cta.ok_or_else(|| {
                    Diagnostic::new(
                        kind_span,
                        ErrorKind::Syntax,
                        format!("`{kind_word}` needs the CTA that owns it: `{name} @ {kind_word} cta 0 ...`"),
                    )
                })?;
                let gpu = attrs.gpu.unwrap_or(0);
                match kind_word.as_str() {
                    "shared" => LocationKind::Shared { cta, gpu },
                    "mbarrier" => LocationKind::Mbarrier { cta, gpu, count: attrs.count },
                    _ => {
                        let lanes = attrs.lanes.unwrap_or(Range { lo: 0, hi: 127 });
                        let cols = attrs.cols.ok_or_else(|| {
                            Diagnostic::new(
                                kind_span,
                                ErrorKind::Syntax,
                                format!("`tmem` needs its columns: `{name} @ tmem cta 0 cols 0-31`"),
                            )
                        })?;
                        LocationKind::Tmem { cta, gpu, lanes, cols }
                    }
                }
            }
            other => {
                return Err(Diagnostic::new(
                    kind_span,
                    ErrorKind::Syntax,
                    format!("unknown location kind `{other}`; expected one of shared, mbarrier, tmem, generic, texture, surface, constant"),
                ));
            }
        };
        let init = if c.eat(&Tok::Assign) { Some(c.value("an initial value")?) } else { None };
        locations.push(Location { name, kind, init, span });
    }
}

#[derive(Default)]
struct Attrs {
    cta: Option<u32>,
    gpu: Option<u32>,
    count: Option<u32>,
    lanes: Option<Range>,
    cols: Option<Range>,
}

/// `cta 0 gpu 0 count 2 lanes 0-31 cols 0-31`, in any order, until `=`, `;` or `}`.
fn parse_attrs(c: &mut Cursor, kind: &str) -> PResult<Attrs> {
    let mut a = Attrs::default();
    while let Some(Tok::Word(w)) = c.peek() {
        let span = c.span();
        let key = w.clone();
        c.bump();
        let allowed = match kind {
            "shared" => &["cta", "gpu"][..],
            "mbarrier" => &["cta", "gpu", "count"][..],
            _ => &["cta", "gpu", "lanes", "cols"][..],
        };
        if !allowed.contains(&key.as_str()) {
            return Err(Diagnostic::new(
                span,
                ErrorKind::Syntax,
                format!("unknown attribute `{key}` of `{kind}`; expected one of {}", allowed.join(", ")),
            ));
        }
        let dup = || Diagnostic::new(span, ErrorKind::Syntax, format!("attribute `{key}` given twice"));
        match key.as_str() {
            "cta" => {
                if a.cta.replace(c.u32("a CTA id")?).is_some() {
                    return Err(dup());
                }
            }
            "gpu" => {
                if a.gpu.replace(c.u32("a GPU id")?).is_some() {
                    return Err(dup());
                }
            }
            "count" => {
                if a.count.replace(c.u32("an arrival count")?).is_some() {
                    return Err(dup());
                }
            }
            _ => {
                let lo = c.u32("the first index of a range `lo-hi`")?;
                c.expect(&Tok::Minus, "`-` in a range `lo-hi`")?;
                let hi = c.u32("the last index of a range `lo-hi`")?;
                if hi < lo {
                    return Err(Diagnostic::new(
                        span,
                        ErrorKind::Syntax,
                        format!("empty range `{lo}-{hi}`: the last index must not be below the first"),
                    ));
                }
                let slot = if key == "lanes" { &mut a.lanes } else { &mut a.cols };
                if slot.replace(Range { lo, hi }).is_some() {
                    return Err(dup());
                }
            }
        }
    }
    Ok(a)
}

/// Is the cursor at a thread header `P0@...`?
fn at_thread_header(c: &Cursor) -> bool {
    matches!((c.peek(), c.peek_at(1)), (Some(Tok::Word(_)), Some(Tok::At)))
}

fn parse_threads(c: &mut Cursor, anchors: &mut Anchors) -> PResult<Vec<Thread>> {
    if !at_thread_header(c) {
        return Err(c.error("a thread header such as `P0@cta 0,gpu 0`"));
    }
    // A header row containing `{` starts block-style threads.
    let mut k = 0;
    let mut blocks = false;
    while let Some(t) = c.peek_at(k) {
        match t {
            Tok::Newline => break,
            Tok::LBrace => {
                blocks = true;
                break;
            }
            _ => k += 1,
        }
    }
    if blocks { parse_blocks(c, anchors) } else { parse_columns(c, anchors) }
}

fn parse_thread_header(c: &mut Cursor) -> PResult<(String, Placement, Span)> {
    let (name, span) = c.word("a thread name such as `P0`")?;
    c.expect(&Tok::At, "`@` after the thread name")?;
    let mut keys: Vec<(String, u32, Span)> = Vec::new();
    loop {
        let (key, kspan) = c.word("a placement such as `cta 0`")?;
        let v = c.u32(&format!("a number after `{key}`"))?;
        if keys.iter().any(|(k, _, _)| *k == key) {
            return Err(Diagnostic::new(kspan, ErrorKind::BadPlacement, format!("placement `{key}` given twice for thread {name}")));
        }
        keys.push((key, v, kspan));
        if !c.eat(&Tok::Comma) {
            break;
        }
    }
    let get = |k: &str| keys.iter().find(|(key, _, _)| key == k).map(|(_, v, _)| *v);
    // The first key decides the kind of thread; a key of the other kind is the mistake.
    let tile = matches!(keys[0].0.as_str(), "tlb" | "dev");
    for (key, _, kspan) in &keys {
        let ok = if tile { matches!(key.as_str(), "tlb" | "dev") } else { matches!(key.as_str(), "gpu" | "cluster" | "cta" | "warp") };
        if !ok {
            let msg = if matches!(key.as_str(), "tlb" | "dev" | "gpu" | "cluster" | "cta" | "warp") {
                format!(
                    "placement `{key}` cannot be mixed with {} of thread {name}: a thread is either a PTX thread (gpu, cluster, cta, warp) or a Tile IR tile block (tlb, dev)",
                    if tile { "`tlb`/`dev`" } else { "`cta`/`gpu`" }
                )
            } else {
                format!("unknown placement `{key}` of thread {name}; expected gpu, cluster, cta, warp (PTX) or tlb, dev (Tile IR)")
            };
            return Err(Diagnostic::new(*kspan, ErrorKind::BadPlacement, msg));
        }
    }
    let placement = if tile {
        let tlb = get("tlb").ok_or_else(|| {
            Diagnostic::new(span, ErrorKind::BadPlacement, format!("thread {name} needs its tile block: `{name}@tlb 0, dev 0`"))
        })?;
        Placement::TileBlock { dev: get("dev").unwrap_or(0), tlb }
    } else {
        let cta = get("cta")
            .ok_or_else(|| Diagnostic::new(span, ErrorKind::BadPlacement, format!("thread {name} needs its CTA: `{name}@cta 0,gpu 0`")))?;
        Placement::Ptx { gpu: get("gpu").unwrap_or(0), cluster: get("cluster"), cta, warp: get("warp") }
    };
    Ok((name, placement, span))
}

fn parse_blocks(c: &mut Cursor, anchors: &mut Anchors) -> PResult<Vec<Thread>> {
    let mut threads = Vec::new();
    while at_thread_header(c) {
        let (name, placement, span) = parse_thread_header(c)?;
        let t = threads.len();
        anchors.push(span, CommentPlace::Thread(t));
        c.skip_newlines();
        c.expect(&Tok::LBrace, "`{` to open the thread's block")?;
        let kind = if matches!(placement, Placement::TileBlock { .. }) { ThreadKind::TileBlock } else { ThreadKind::Ptx };
        let mut body = Vec::new();
        loop {
            while matches!(c.peek(), Some(Tok::Newline | Tok::Semi)) {
                c.bump();
            }
            let end = c.span();
            if c.eat(&Tok::RBrace) {
                anchors.push(end, CommentPlace::ThreadEnd(t));
                break;
            }
            if c.at_end() {
                return Err(Diagnostic::new(
                    c.span(),
                    ErrorKind::Syntax,
                    format!("expected `}}` to close the block of thread {name}, found end of input"),
                ));
            }
            // A statement runs to `;`, `}` or the end of a label.
            let start = c.pos;
            let stmt_span = c.span();
            anchors.push(stmt_span, CommentPlace::Stmt { thread: t, index: body.len() });
            if let (Some(Tok::Word(_)), Some(Tok::Colon)) = (c.peek(), c.peek_at(1)) {
                c.bump();
                c.bump();
                body.push(instr::parse_stmt(&c.toks[start..c.pos], stmt_span, kind)?);
                continue;
            }
            while !matches!(c.peek(), None | Some(Tok::Semi | Tok::RBrace | Tok::Newline)) {
                c.bump();
            }
            body.push(instr::parse_stmt(&c.toks[start..c.pos], stmt_span, kind)?);
        }
        threads.push(Thread { name, placement, body, span });
        c.skip_newlines();
    }
    Ok(threads)
}

fn is_condition_start(c: &Cursor) -> bool {
    match c.peek() {
        Some(Tok::Word(w)) => w == "exists" || w == "forall",
        Some(Tok::Tilde) => matches!(c.peek_at(1), Some(Tok::Word(w)) if w == "exists"),
        _ => false,
    }
}

fn parse_columns(c: &mut Cursor, anchors: &mut Anchors) -> PResult<Vec<Thread>> {
    let mut threads = Vec::new();
    loop {
        let (name, placement, span) = parse_thread_header(c)?;
        anchors.push(span, CommentPlace::Thread(threads.len()));
        threads.push(Thread { name, placement, body: Vec::new(), span });
        if c.eat(&Tok::Pipe) {
            continue;
        }
        c.eat(&Tok::Semi);
        c.expect(&Tok::Newline, "`|`, `;` or the end of the thread header row")?;
        break;
    }
    loop {
        c.skip_newlines();
        if c.at_end() || is_condition_start(c) {
            return Ok(threads);
        }
        let row_start = c.pos;
        while !matches!(c.peek(), None | Some(Tok::Newline)) {
            c.bump();
        }
        let row = &c.toks[row_start..c.pos];
        let mut cells: Vec<&[Token]> = row.split(|t| t.tok == Tok::Pipe).collect();
        if cells.len() > threads.len() {
            let extra = cells[threads.len()].first().map_or(row[0].span, |t| t.span);
            return Err(Diagnostic::new(
                extra,
                ErrorKind::Syntax,
                format!("this row has {} columns but the program has {} threads", cells.len(), threads.len()),
            ));
        }
        for cell in cells.iter_mut() {
            while let Some((last, rest)) = cell.split_last() {
                if last.tok == Tok::Semi { *cell = rest } else { break }
            }
        }
        for (i, cell) in cells.iter().enumerate() {
            if cell.is_empty() {
                continue;
            }
            if let Some(semi) = cell.iter().find(|t| t.tok == Tok::Semi) {
                return Err(Diagnostic::new(
                    semi.span,
                    ErrorKind::Syntax,
                    "`;` inside a column: one instruction per cell, and `;` only ends the row",
                ));
            }
            let kind = threads[i].kind();
            anchors.push(cell[0].span, CommentPlace::Stmt { thread: i, index: threads[i].body.len() });
            let stmt = instr::parse_stmt(cell, cell[0].span, kind)?;
            threads[i].body.push(stmt);
        }
    }
}

fn parse_condition(c: &mut Cursor, anchors: &mut Anchors) -> PResult<Condition> {
    let span = c.span();
    anchors.push(span, CommentPlace::Condition);
    let quantifier = if c.eat(&Tok::Tilde) {
        let (w, _) = c.word("`exists` after `~`")?;
        if w != "exists" {
            return Err(Diagnostic::new(span, ErrorKind::Syntax, format!("expected `~exists`, found `~{w}`")));
        }
        Quantifier::NotExists
    } else {
        match c.word("the final condition (`exists`, `~exists` or `forall`)")? {
            (w, _) if w == "exists" => Quantifier::Exists,
            (w, _) if w == "forall" => Quantifier::Forall,
            (w, s) => return Err(Diagnostic::new(s, ErrorKind::Syntax, format!("expected `exists`, `~exists` or `forall`, found `{w}`"))),
        }
    };
    // The condition may span lines: drop the line breaks.
    let rest: Vec<Token> = c.toks[c.pos..].iter().filter(|t| t.tok != Tok::Newline).cloned().collect();
    let mut pc = Cursor::new(&rest, c.end);
    let (prop, _) = parse_or(&mut pc, 0)?;
    while pc.eat(&Tok::Semi) {}
    if !pc.at_end() {
        return Err(pc.error("the end of the file after the final condition"));
    }
    Ok(Condition { quantifier, prop, span })
}

/// The error for a condition nested deeper than [`MAX_CONDITION_DEPTH`].
fn too_deep(span: Span) -> Diagnostic {
    Diagnostic::new(
        span,
        ErrorKind::Syntax,
        format!(
            "the final condition is nested too deeply: at most {MAX_CONDITION_DEPTH} levels of parentheses, `~` and `/\\` or `\\/` operands"
        ),
    )
}

/// A proposition and the height of its tree. `level` counts the parentheses and `~` around it,
/// which bound this parser's own recursion.
type Parsed = (Prop, usize);

fn parse_or(c: &mut Cursor, level: usize) -> PResult<Parsed> {
    let (mut p, mut height) = parse_and(c, level)?;
    while c.eat(&Tok::Or) {
        let span = c.span();
        let (q, h) = parse_and(c, level)?;
        height = 1 + height.max(h);
        if height > MAX_CONDITION_DEPTH {
            return Err(too_deep(span));
        }
        p = Prop::Or(Box::new(p), Box::new(q));
    }
    Ok((p, height))
}

fn parse_and(c: &mut Cursor, level: usize) -> PResult<Parsed> {
    let (mut p, mut height) = parse_unary(c, level)?;
    while c.eat(&Tok::And) {
        let span = c.span();
        let (q, h) = parse_unary(c, level)?;
        height = 1 + height.max(h);
        if height > MAX_CONDITION_DEPTH {
            return Err(too_deep(span));
        }
        p = Prop::And(Box::new(p), Box::new(q));
    }
    Ok((p, height))
}

fn parse_unary(c: &mut Cursor, level: usize) -> PResult<Parsed> {
    let span = c.span();
    if matches!(c.peek(), Some(Tok::Tilde | Tok::LParen)) && level >= MAX_CONDITION_DEPTH {
        return Err(too_deep(span));
    }
    if c.eat(&Tok::Tilde) {
        let (p, height) = parse_unary(c, level + 1)?;
        if height >= MAX_CONDITION_DEPTH {
            return Err(too_deep(span));
        }
        return Ok((Prop::Not(Box::new(p)), height + 1));
    }
    if c.eat(&Tok::LParen) {
        let p = parse_or(c, level + 1)?;
        c.expect(&Tok::RParen, "`)`")?;
        return Ok(p);
    }
    if matches!(c.peek(), Some(Tok::Word(w)) if w == "true") && !matches!(c.peek_at(1), Some(Tok::EqEq | Tok::NotEq | Tok::Assign)) {
        c.bump();
        return Ok((Prop::True, 0));
    }
    let lhs = parse_term(c)?;
    let eq = match c.peek() {
        Some(Tok::EqEq | Tok::Assign) => true,
        Some(Tok::NotEq) => false,
        _ => return Err(c.error("`==`, `=` or `!=`")),
    };
    c.bump();
    let rhs = parse_term(c)?;
    Ok((Prop::Atom(Cmp { lhs, eq, rhs, span }), 0))
}

fn parse_term(c: &mut Cursor) -> PResult<Term> {
    let what = "a register `P0:r0`, a location, or a value";
    match (c.peek(), c.peek_at(1)) {
        (Some(Tok::LBracket), _) => {
            c.bump();
            Ok(Term::Const(Value::Tile(c.int_list()?)))
        }
        (Some(Tok::Int(i)), Some(Tok::Colon)) => {
            let thread = i.to_string();
            c.bump();
            c.bump();
            let (reg, _) = c.word("a register name")?;
            Ok(Term::Reg { thread, reg })
        }
        (Some(Tok::Int(_) | Tok::Minus), _) => Ok(Term::Const(Value::Int(c.int(what)?))),
        (Some(Tok::Word(w)), Some(Tok::Colon)) => {
            let thread = w.clone();
            c.bump();
            c.bump();
            let (reg, _) = c.word("a register name")?;
            Ok(Term::Reg { thread, reg })
        }
        (Some(Tok::Word(w)), _) => {
            let name = w.clone();
            c.bump();
            let element = if c.eat(&Tok::LBracket) {
                let i = c.u32("an element index")?;
                c.expect(&Tok::RBracket, "`]`")?;
                Some(i)
            } else {
                None
            };
            Ok(Term::Loc { name, element })
        }
        _ => Err(c.error(what)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_errors() {
        let e = parse("\n\nARM foo\n{}\n").expect_err("bad arch");
        assert_eq!(e.0[0].message, "expected a header `PTX name` or `TileIR name`, found `ARM`");
        assert_eq!(e.0[0].span, Span { line: 3, col: 1 });
        let e = parse("PTX\n").expect_err("no name");
        assert_eq!(e.0[0].message, "expected a test name after `PTX`");
    }

    #[test]
    fn condition_precedence() {
        let p = parse("PTX t\n{ x = 0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 1 \\/ P0:r0 == 2 /\\ ~x = 3)\n")
            .expect("parses");
        match p.condition.prop {
            Prop::Or(_, rhs) => assert!(matches!(*rhs, Prop::And(_, _))),
            other => panic!("wrong tree {other:?}"),
        }
    }
}
