//! Tokens of the litmus format. Line breaks are tokens too: PTX threads are written in columns,
//! one source line per row.

use crate::ast::{CommentStyle, Span};
use crate::error::{Diagnostic, ErrorKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A word: mnemonics with their qualifiers (`atom.relaxed.gpu.exch`, `tcgen05.mma.cta_group::1`),
    /// names, registers (`%r1`), keywords.
    Word(String),
    Int(i64),
    /// A doc string, without its quotes.
    Str(String),
    Newline,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    LAngle,
    RAngle,
    Comma,
    Semi,
    Colon,
    Pipe,
    At,
    Minus,
    /// `=`
    Assign,
    /// `==`
    EqEq,
    /// `!=`
    NotEq,
    /// `~`
    Tilde,
    /// `/\`
    And,
    /// `\/`
    Or,
}

impl Tok {
    /// How the token is shown in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Str(_) => "a string".to_string(),
            Tok::Newline => "end of line".to_string(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LAngle => "`<`".into(),
            Tok::RAngle => "`>`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Semi => "`;`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Pipe => "`|`".into(),
            Tok::At => "`@`".into(),
            Tok::Minus => "`-`".into(),
            Tok::Assign => "`=`".into(),
            Tok::EqEq => "`==`".into(),
            Tok::NotEq => "`!=`".into(),
            Tok::Tilde => "`~`".into(),
            Tok::And => "`/\\`".into(),
            Tok::Or => "`\\/`".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// A comment as the lexer found it; the parser attaches it to an item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexComment {
    pub text: String,
    pub style: CommentStyle,
    pub span: Span,
    /// Some token ends on the line where the comment starts: it belongs to that token's item.
    pub trailing: bool,
}

/// Tokens and comments of a text.
#[derive(Debug)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub comments: Vec<LexComment>,
}

fn is_word_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '%' || c == '$'
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%' || c == '$'
}

/// The largest magnitude a negative literal may have: |i64::MIN|.
const MIN_MAGNITUDE: u64 = 1 << 63;

/// Tokenizes `src`, whose first character is at `start` (line numbers continue from there).
pub fn lex(src: &str, start: Span) -> Result<Lexed, Diagnostic> {
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut comments = Vec::new();
    let (mut line, mut col) = (start.line, start.col);
    // The line on which the last token (not a line break) ended.
    let mut token_line: Option<u32> = None;
    let mut i = 0;
    // Advances over `n` characters, keeping line/col up to date.
    let advance = |i: &mut usize, n: usize, line: &mut u32, col: &mut u32| {
        for _ in 0..n {
            if chars.get(*i) == Some(&'\n') {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
            *i += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let span = Span { line, col };
        let next = chars.get(i + 1).copied();
        let trailing = token_line == Some(line);
        match c {
            '\n' => {
                out.push(Token { tok: Tok::Newline, span });
                advance(&mut i, 1, &mut line, &mut col);
                continue;
            }
            c if c.is_whitespace() => {
                advance(&mut i, 1, &mut line, &mut col);
                continue;
            }
            '/' if next == Some('/') => {
                let mut j = i + 2;
                while j < chars.len() && chars[j] != '\n' {
                    j += 1;
                }
                let text = chars[i + 2..j].iter().collect();
                comments.push(LexComment { text, style: CommentStyle::Line, span, trailing });
                let n = j - i;
                advance(&mut i, n, &mut line, &mut col);
                continue;
            }
            '(' if next == Some('*') => {
                let Some(j) = block_comment_end(&chars, i) else {
                    return Err(Diagnostic::new(span, ErrorKind::Syntax, "unterminated comment: `(*` without a closing `*)`"));
                };
                let text = chars[i + 2..j].iter().collect();
                comments.push(LexComment { text, style: CommentStyle::Block, span, trailing });
                // Line breaks inside a comment are not rows.
                let n = j + 2 - i;
                advance(&mut i, n, &mut line, &mut col);
                continue;
            }
            '"' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != '"' {
                    j += 1;
                }
                if j >= chars.len() {
                    return Err(Diagnostic::new(span, ErrorKind::Syntax, "unterminated string: `\"` without a closing `\"`"));
                }
                let text: String = chars[i + 1..j].iter().collect();
                out.push(Token { tok: Tok::Str(text), span });
                let n = j + 1 - i;
                advance(&mut i, n, &mut line, &mut col);
            }
            '/' if next == Some('\\') => {
                out.push(Token { tok: Tok::And, span });
                advance(&mut i, 2, &mut line, &mut col);
            }
            '\\' if next == Some('/') => {
                out.push(Token { tok: Tok::Or, span });
                advance(&mut i, 2, &mut line, &mut col);
            }
            '=' if next == Some('=') => {
                out.push(Token { tok: Tok::EqEq, span });
                advance(&mut i, 2, &mut line, &mut col);
            }
            '!' if next == Some('=') => {
                out.push(Token { tok: Tok::NotEq, span });
                advance(&mut i, 2, &mut line, &mut col);
            }
            c if c.is_ascii_digit() => {
                let mut j = i;
                let magnitude = if c == '0' && matches!(next, Some('x') | Some('X')) {
                    j += 2;
                    let s = j;
                    while j < chars.len() && chars[j].is_ascii_hexdigit() {
                        j += 1;
                    }
                    let digits: String = chars[s..j].iter().collect();
                    if digits.is_empty() {
                        return Err(Diagnostic::new(span, ErrorKind::Syntax, "malformed number `0x`: hex digits must follow"));
                    }
                    u64::from_str_radix(&digits, 16).ok()
                } else {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    let digits: String = chars[i..j].iter().collect();
                    digits.parse::<u64>().ok()
                };
                if j < chars.len() && is_word_char(chars[j]) {
                    let bad: String = chars[i..=j].iter().collect();
                    return Err(Diagnostic::new(span, ErrorKind::Syntax, format!("malformed number `{bad}`")));
                }
                // A `-` right before the digits makes the literal negative, so that i64::MIN,
                // whose magnitude is no i64, can be written (the parser negates the value).
                let minus = out.last().filter(|t| t.tok == Tok::Minus && t.span.line == line && t.span.col + 1 == col).map(|t| t.span);
                let value = match magnitude {
                    Some(m) if m <= i64::MAX as u64 => Some(m as i64),
                    Some(MIN_MAGNITUDE) if minus.is_some() => Some(i64::MIN),
                    _ => None,
                };
                let Some(value) = value else {
                    let sign = if minus.is_some() { "-" } else { "" };
                    let bad: String = chars[i..j].iter().collect();
                    return Err(Diagnostic::new(
                        minus.unwrap_or(span),
                        ErrorKind::Syntax,
                        format!("number `{sign}{bad}` is out of range (integers are 64-bit: {} to {})", i64::MIN, i64::MAX),
                    ));
                };
                out.push(Token { tok: Tok::Int(value), span });
                let n = j - i;
                advance(&mut i, n, &mut line, &mut col);
            }
            c if is_word_start(c) => {
                let mut j = i;
                while j < chars.len() {
                    if is_word_char(chars[j]) {
                        j += 1;
                    } else if chars[j] == ':' && chars.get(j + 1) == Some(&':') {
                        // `shared::cta`, `cta_group::1`, `mbarrier::arrive::one`.
                        j += 2;
                    } else {
                        break;
                    }
                }
                let word: String = chars[i..j].iter().collect();
                out.push(Token { tok: Tok::Word(word), span });
                let n = j - i;
                advance(&mut i, n, &mut line, &mut col);
            }
            _ => {
                let tok = match c {
                    '{' => Tok::LBrace,
                    '}' => Tok::RBrace,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    '(' => Tok::LParen,
                    ')' => Tok::RParen,
                    '<' => Tok::LAngle,
                    '>' => Tok::RAngle,
                    ',' => Tok::Comma,
                    ';' => Tok::Semi,
                    ':' => Tok::Colon,
                    '|' => Tok::Pipe,
                    '@' => Tok::At,
                    '-' => Tok::Minus,
                    '=' => Tok::Assign,
                    '~' => Tok::Tilde,
                    other if other.is_alphanumeric() => {
                        return Err(Diagnostic::new(
                            span,
                            ErrorKind::Syntax,
                            format!("unexpected character `{other}`: names are ASCII (letters, digits, `_`, `.`, `%`, `$`)"),
                        ));
                    }
                    other => {
                        return Err(Diagnostic::new(span, ErrorKind::Syntax, format!("unexpected character `{}`", other.escape_default())));
                    }
                };
                out.push(Token { tok, span });
                advance(&mut i, 1, &mut line, &mut col);
            }
        }
        token_line = Some(line);
    }
    Ok(Lexed { tokens: out, comments })
}

/// The index of the `*` of the `*)` that closes the block comment opening at `open`.
pub fn block_comment_end(chars: &[char], open: usize) -> Option<usize> {
    let mut j = open + 2;
    while j + 1 < chars.len() {
        if chars[j] == '*' && chars[j + 1] == ')' {
            return Some(j);
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s, Span { line: 1, col: 1 }).expect("lexes").tokens.into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn words_keep_double_colons_and_dots() {
        assert_eq!(
            toks("tcgen05.mma.cta_group::1.kind::f16 [d]"),
            vec![Tok::Word("tcgen05.mma.cta_group::1.kind::f16".into()), Tok::LBracket, Tok::Word("d".into()), Tok::RBracket]
        );
        assert_eq!(toks("P1:r0"), vec![Tok::Word("P1".into()), Tok::Colon, Tok::Word("r0".into())]);
    }

    #[test]
    fn comments_and_operators() {
        assert_eq!(
            toks("a /\\ b \\/ ~c (* x\ny *) == != = // z"),
            vec![
                Tok::Word("a".into()),
                Tok::And,
                Tok::Word("b".into()),
                Tok::Or,
                Tok::Tilde,
                Tok::Word("c".into()),
                Tok::EqEq,
                Tok::NotEq,
                Tok::Assign
            ]
        );
    }

    #[test]
    fn positions_are_one_based() {
        let t = lex("a\n  b", Span { line: 3, col: 1 }).expect("lexes").tokens;
        assert_eq!(t[2].span, Span { line: 4, col: 3 });
    }

    #[test]
    fn errors_name_the_problem() {
        let e = lex("x = 99999999999999999999", Span { line: 1, col: 1 }).expect_err("overflow");
        assert_eq!(
            e.message,
            "number `99999999999999999999` is out of range (integers are 64-bit: -9223372036854775808 to 9223372036854775807)"
        );
        let e = lex("\"abc", Span { line: 1, col: 1 }).expect_err("unterminated");
        assert_eq!(e.span, Span { line: 1, col: 1 });
        let e = lex("x = 0x;", Span { line: 1, col: 1 }).expect_err("no digits");
        assert_eq!(e.message, "malformed number `0x`: hex digits must follow");
        let e = lex("ld r0, x # y", Span { line: 1, col: 1 }).expect_err("bad char");
        assert_eq!(e.message, "unexpected character `#`");
        assert_eq!(e.span, Span { line: 1, col: 10 });
    }
}
