//! The top-level modules of the library form a graph without cycles, and no
//! engine module reaches into the C layer (`ffi`).
//!
//! The graph is read from the sources: every `crate::` path (also inside
//! `use crate::{a, b::c}` groups) and every `super::` path that climbs out
//! of a top-level module, in code that is not a comment and not under
//! `#[cfg(test)]` (unit tests may use the layers above the code they test).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The source text without comments, with string and char literals emptied
/// (so that what they hold is not read as paths).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'r' && matches!(b.get(i + 1), Some(b'"') | Some(b'#')) && {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            while b.get(j) == Some(&b'#') {
                j += 1;
            }
            b.get(j) == Some(&b'"') && (i == 0 || !is_ident(b[i - 1]))
        } {
            let mut j = i + 1;
            let mut hashes = 0;
            while b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == b'"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&b'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}', '"') or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&b'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push('\'');
                i += 1;
            }
        } else {
            // Copy the whole UTF-8 character.
            let len = utf8_len(c);
            out.push_str(&src[i..i + len]);
            i += len;
        }
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The text with every item under `#[cfg(test)]` removed; also returns
/// the names of out-of-line modules so declared (`#[cfg(test)] mod x;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    const ATTR: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut test_mods = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(ATTR) {
        out.push_str(&rest[..at]);
        let item = &rest[at + ATTR.len()..];
        let b = item.as_bytes();
        let mut depth = 0usize;
        let mut end = b.len();
        for (k, &c) in b.iter().enumerate() {
            match c {
                b'{' => depth += 1,
                // The end of the enclosing block: the item was a field or
                // an expression.
                b'}' if depth == 0 => {
                    end = k;
                    break;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                b',' if depth == 0 => {
                    end = k + 1;
                    break;
                }
                b';' if depth == 0 => {
                    end = k + 1;
                    let words: Vec<&str> = item[..k].split_whitespace().collect();
                    if let Some(p) = words.iter().position(|w| *w == "mod") {
                        if let Some(name) = words.get(p + 1) {
                            test_mods.push(name.to_string());
                        }
                    }
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    (out, test_mods)
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s.bytes().position(|c| !is_ident(c)).unwrap_or(s.len());
    &s[..end]
}

/// The first segment of each path of a `{...}` group starting at `s[0]`.
fn group_heads(s: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect = true;
    for (k, c) in s.char_indices() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    expect = true;
                    continue;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => {
                expect = true;
                continue;
            }
            _ => {}
        }
        if depth == 1 && expect && !c.is_whitespace() {
            expect = false;
            let id = ident(&s[k..]);
            if !id.is_empty() {
                heads.push(id.to_string());
            }
        }
    }
    heads
}

/// The top-level modules a piece of code in module `modpath` names.
fn references(code: &str, modpath: &[String]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let b = code.as_bytes();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b'$') {
            continue;
        }
        let tail = &code[at + "crate::".len()..];
        if tail.starts_with('{') {
            found.extend(group_heads(tail));
        } else {
            found.insert(ident(tail).to_string());
        }
    }
    for (at, _) in code.match_indices("super::") {
        if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':') {
            continue;
        }
        let mut tail = &code[at..];
        let mut climb = 0;
        while let Some(t) = tail.strip_prefix("super::") {
            climb += 1;
            tail = t;
        }
        if climb == modpath.len() {
            if tail.starts_with('{') {
                found.extend(group_heads(tail));
            } else {
                found.insert(ident(tail).to_string());
            }
        }
    }
    found
}

/// Every source file under `dir` with its module path.
fn files(
    dir: &Path,
    modpath: Vec<String>,
    skip: &BTreeSet<PathBuf>,
    out: &mut Vec<(PathBuf, Vec<String>)>,
) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if skip.contains(&path) {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            let mut sub = modpath.clone();
            sub.push(name);
            files(&path, sub, skip, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let mut m = modpath.clone();
            if name != "mod" && name != "lib" {
                m.push(name);
            }
            out.push((path, m));
        }
    }
}

/// The edges between top-level modules.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut tops = BTreeSet::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if name != "lib"
            && name != "bin"
            && (p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
        {
            tops.insert(name);
        }
    }
    // The command-line tool is a separate crate that uses the library's
    // public API, not `crate::` paths.
    let mut skip: BTreeSet<PathBuf> = [src.join("bin")].into();
    let mut all = Vec::new();
    files(&src, Vec::new(), &skip, &mut all);
    // Files of modules declared under #[cfg(test)] are test code.
    for (path, _) in &all {
        let (_, test_mods) = without_tests(&strip(&std::fs::read_to_string(path).unwrap()));
        let dir = if path
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
        {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        for m in test_mods {
            skip.insert(dir.join(format!("{m}.rs")));
            skip.insert(dir.join(&m));
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, modpath) in all {
        if skip.iter().any(|s| path.starts_with(s)) {
            continue;
        }
        let Some(top) = modpath.first() else {
            continue; // lib.rs
        };
        let (code, _) = without_tests(&strip(&std::fs::read_to_string(&path).unwrap()));
        let targets = graph.entry(top.clone()).or_default();
        for r in references(&code, &modpath) {
            if &r != top && tops.contains(&r) {
                targets.insert(r);
            }
        }
    }
    graph
}

/// A cycle through `graph`, if there is one, as the list of its modules.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // 0 = unseen, 1 = on the current path, 2 = done.
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| p == m).unwrap();
                    let mut cycle = path[from..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn top_level_modules_have_no_cycle() {
    let graph = module_graph();
    let listing: Vec<String> = graph
        .iter()
        .map(|(m, to)| {
            format!(
                "{m} -> {}",
                to.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    println!("{}", listing.join("\n"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "module cycle: {}\n{}",
            cycle.join(" -> "),
            listing.join("\n")
        );
    }
}

#[test]
fn no_engine_module_uses_the_c_layer() {
    let graph = module_graph();
    for (m, to) in &graph {
        assert!(m == "ffi" || !to.contains("ffi"), "{m} uses ffi");
    }
    assert!(graph.contains_key("chunk") && graph.contains_key("ffi"));
}

#[test]
fn the_reader_sees_paths_and_skips_tests() {
    let code = strip(
        "use crate::{a::b, c, self};\n// crate::d\nlet s = \"crate::e\";\n\
         fn f<'a>(x: &'a u8) -> char { '{' }\n\
         #[cfg(test)]\nmod tests { use crate::g; }\nuse super::h::k;\n",
    );
    let (code, _) = without_tests(&code);
    let refs = references(&code, &["top".to_string()]);
    let want: BTreeSet<String> = ["a", "c", "self", "h"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(refs, want);
    let (_, mods) = without_tests("#[cfg(test)]\nmod tests;\nfn x() {}");
    assert_eq!(mods, vec!["tests".to_string()]);
    let cyclic: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), ["b".to_string()].into()),
        ("b".to_string(), ["a".to_string()].into()),
    ]
    .into();
    assert_eq!(find_cycle(&cyclic).unwrap().len(), 3);
}
