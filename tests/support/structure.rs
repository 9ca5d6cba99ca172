//! A crate's source keeps its shape. Each crate's `tests/structure.rs` includes this file
//! (the function limit) and, where the crate is layered, `layers.rs` (no import cycles):
//!
//! - **layers**: no module (file) imports another that imports it back, directly or
//!   transitively. Imports are the `crate::`/`super::` paths of non-test code, resolved
//!   to the deepest module file they name, and a parent's uses of its own children;
//! - **functions a reader can hold**: none is longer than 150 lines (from its `fn` line to
//!   its closing brace) unless a plain `//` comment right above the `fn` says why.

#![allow(dead_code)] // the helpers serve `layers.rs` where a crate includes it

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const MAX_FN_LINES: usize = 150;

/// A source file and its module path (`["d3d9", "rules"]`; the crate root is `[]`).
pub(crate) struct Module {
    pub(crate) path: Vec<String>,
    pub(crate) file: PathBuf,
    pub(crate) text: String,
}

pub(crate) fn modules() -> Vec<Module> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = p.strip_prefix(&src).unwrap();
            let mut path: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
                path.pop();
            }
            let text = std::fs::read_to_string(&p).unwrap();
            out.push(Module {
                path,
                file: rel.to_path_buf(),
                text,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The code of a file without comments, string and character literals, and without its
/// `#[cfg(test)]` items.
fn code(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut in_str = false;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if in_str {
            match c {
                '\\' => i += 1,
                '"' => in_str = false,
                '\n' => out.push('\n'),
                _ => {}
            }
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        } else if c == '"' {
            in_str = true;
        } else if c == '\'' && next == Some('\\') {
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 2;
        } else {
            out.push(c);
        }
        i += 1;
    }
    without_tests(&out)
}

/// Drops each `#[cfg(test)]` item (up to its closing brace).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut skip_depth: Option<i32> = None;
    let mut depth = 0i32;
    let mut pending_test = false;
    for l in code.lines() {
        if l.trim_start().starts_with("#[cfg(test)]") {
            pending_test = true;
            continue;
        }
        let opens = l.matches('{').count() as i32;
        let closes = l.matches('}').count() as i32;
        if pending_test && opens > 0 {
            pending_test = false;
            skip_depth = Some(depth);
        }
        depth += opens - closes;
        if let Some(d) = skip_depth {
            if depth <= d {
                skip_depth = None;
            }
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The module a path names: the longest prefix of `segments` under `base` that is a module.
fn resolve(base: &[String], segments: &[&str], known: &BTreeSet<Vec<String>>) -> Vec<String> {
    let mut cur = base.to_vec();
    for s in segments {
        let mut next = cur.clone();
        next.push(s.to_string());
        if known.contains(&next) {
            cur = next;
        } else {
            break;
        }
    }
    cur
}

/// Paths after `prefix::` in `code`, as segment lists; a `{a::b, c}` group yields one
/// path per item.
fn paths<'a>(code: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let pat = format!("{prefix}::");
    let mut rest = code;
    while let Some(i) = rest.find(&pat) {
        let before = rest[..i].chars().last();
        rest = &rest[i + pat.len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut segs = Vec::new();
        let mut r = rest;
        loop {
            if let Some(group) = r.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let head = ident(item.trim());
                    if !head.is_empty() {
                        let mut p = segs.clone();
                        p.push(head);
                        out.push(p);
                    }
                }
                segs.clear();
                break;
            }
            let id = ident(r);
            if id.is_empty() {
                break;
            }
            segs.push(id);
            r = &r[id.len()..];
            match r.strip_prefix("::") {
                Some(more) => r = more,
                None => break,
            }
        }
        if !segs.is_empty() {
            out.push(segs);
        }
    }
    out
}

pub(crate) fn imports(m: &Module, known: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let code = code(&m.text);
    let is_dir_module = m.file.ends_with("mod.rs") || m.file.ends_with("lib.rs");
    let parent: Vec<String> = if m.path.is_empty() {
        Vec::new()
    } else {
        m.path[..m.path.len() - 1].to_vec()
    };
    // `super` of `a/b.rs` and of `a/b/mod.rs` is `a`.
    let mut out = BTreeSet::new();
    for p in paths(&code, "crate") {
        out.insert(resolve(&[], &p, known));
    }
    for p in paths(&code, "super") {
        out.insert(resolve(&parent, &p, known));
    }
    // A parent module using its children by their bare names (`lexer::lex(...)`).
    if is_dir_module {
        for child in known.iter().filter(|k| k.len() == m.path.len() + 1) {
            if !child.starts_with(&m.path) {
                continue;
            }
            let name = child.last().unwrap();
            if !paths(&code, name).is_empty() {
                out.insert(child.clone());
            }
        }
    }
    out.remove(&m.path);
    out
}

/// `(name, first line, length)` of every function longer than the limit without a reason.
fn long_functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let decl = t
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ")
            .trim_start_matches("const ");
        let Some(rest) = decl.strip_prefix("fn ") else {
            continue;
        };
        if t.ends_with(';') {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        let Some(end) =
            (i..lines.len()).find(|&j| lines[j] == close || (j == i && t.ends_with('}')))
        else {
            continue;
        };
        let len = end - i + 1;
        let reason = i > 0 && {
            let above = lines[i - 1].trim_start();
            above.starts_with("//") && !above.starts_with("///")
        };
        if len > MAX_FN_LINES && !reason {
            out.push((ident(rest).to_string(), i + 1, len));
        }
    }
    out
}

#[test]
fn functions_fit_on_a_screen_or_say_why() {
    let mut long = Vec::new();
    for m in modules() {
        for (name, line, len) in long_functions(&m.text) {
            long.push(format!(
                "src/{}:{line} `{name}`: {len} lines",
                m.file.display()
            ));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines without a `//` reason above them:\n{}",
        long.join("\n")
    );
    let sample = "fn a() {\n".to_string() + &"    x();\n".repeat(200) + "}\n";
    assert_eq!(
        long_functions(&sample).len(),
        1,
        "the length scan finds nothing"
    );
}
