//! Litmus text as HTML with syntax classes: `k` instructions and keywords, `t` thread headers,
//! `n` numbers, `s` doc strings, `c` comments. Every character of the program is escaped: a
//! program is data, never markup.

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn span(class: &str, text: &str) -> String {
    format!(r#"<span class="{class}">{}</span>"#, escape(text))
}

const KEYWORDS: [&str; 20] = [
    "PTX", "TileIR", "exists", "forall", "ld", "st", "atom", "red", "fence", "membar", "bar", "barrier", "mbarrier", "cp", "tcgen05",
    "mov", "add", "beq", "bne", "goto",
];

fn word_class(word: &str) -> Option<&'static str> {
    let head = word.split('.').next().unwrap_or(word);
    if word.contains('@') {
        Some("t")
    } else if KEYWORDS.contains(&head) || matches!(head, "assume" | "await" | "make_token" | "join_tokens") {
        Some("k")
    } else if word.chars().all(|c| c.is_ascii_digit() || c == '-') && word.chars().any(|c| c.is_ascii_digit()) || word.starts_with("0x") {
        Some("n")
    } else {
        None
    }
}

/// The program as highlighted HTML (for a `<pre>`).
pub fn litmus(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
        if rest == "//" {
            let end = chars[i..].iter().position(|&c| c == '\n').map_or(chars.len(), |p| i + p);
            out.push_str(&span("c", &chars[i..end].iter().collect::<String>()));
            i = end;
        } else if rest == "(*" {
            let s: String = chars[i..].iter().collect();
            let end = s.find("*)").map_or(chars.len(), |p| i + s[..p].chars().count() + 2);
            out.push_str(&span("c", &chars[i..end].iter().collect::<String>()));
            i = end;
        } else if c == '"' {
            let end = chars[i + 1..].iter().position(|&c| c == '"').map_or(chars.len(), |p| i + p + 2);
            out.push_str(&span("s", &chars[i..end].iter().collect::<String>()));
            i = end;
        } else if c.is_alphanumeric() || c == '_' || c == '%' || c == '-' {
            let end = chars[i..]
                .iter()
                .position(|&c| !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '%' | '@' | '-')))
                .map_or(chars.len(), |p| i + p);
            let word: String = chars[i..end].iter().collect();
            match word_class(&word) {
                Some(class) => out.push_str(&span(class, &word)),
                None => out.push_str(&escape(&word)),
            }
            i = end.max(i + 1);
        } else {
            out.push_str(&escape(&c.to_string()));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_is_escaped_and_classes_mark_the_parts() {
        let html = litmus("PTX t\n\"doc <b>\"\n P0@cta 0 ;\n st.relaxed.gpu x, 1 ; // <script>\nexists (x == 1)\n");
        assert!(html.contains(r#"<span class="k">PTX</span>"#), "{html}");
        assert!(html.contains(r#"<span class="s">&quot;doc &lt;b&gt;&quot;</span>"#), "{html}");
        assert!(html.contains(r#"<span class="t">P0@cta</span>"#), "{html}");
        assert!(html.contains(r#"<span class="k">st.relaxed.gpu</span>"#), "{html}");
        assert!(html.contains(r#"<span class="c">// &lt;script&gt;</span>"#), "{html}");
        assert!(!html.contains("<script>") && !html.contains("<b>"), "{html}");
    }
}
