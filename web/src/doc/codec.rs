//! Permalinks: the document in the URL fragment.
//!
//! A state link is `#v1.` followed by base64url (no padding) of the raw-deflate-compressed
//! JSON of a [`Doc`]; an example link is `#ex=<example id>`. Decoding treats the fragment
//! as hostile: its length is capped before anything else, inflation stops at
//! [`MAX_JSON`] bytes (a zip bomb fails fast), JSON errors and newer format versions get a
//! message, and the document goes through [`Doc::sanitize`]. Nothing here panics.
//!
//! Either may end with `;px=X,Y`: the pixel the debugger is open on ([`pixel`],
//! [`with_pixel`]); links without it open as they always did.

use crate::doc::model::Doc;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use std::fmt;

/// Format version written by this build.
pub const VERSION: u32 = 1;
/// Longest fragment decoded (characters, without the `#`).
pub const MAX_FRAGMENT: usize = 128 * 1024;
/// Most bytes a fragment may inflate to.
pub const MAX_JSON: usize = 512 * 1024;

/// What a fragment asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    /// No fragment: start from local storage or the default example.
    None,
    Example(String),
    State(Box<Doc>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    TooLong { len: usize },
    NotALink,
    Newer { version: u32 },
    BadVersion,
    Base64,
    Deflate,
    TooLarge,
    Json(String),
    Invalid(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::TooLong { len } => write!(
                f,
                "the link is {} KiB long; links of up to {} KiB are accepted",
                len / 1024,
                MAX_FRAGMENT / 1024
            ),
            DecodeError::NotALink => {
                f.write_str("the part after # is not a Hoist link (expected #v1.… or #ex=…)")
            }
            DecodeError::Newer { version } => write!(
                f,
                "this link was made by a newer Hoist (format {version}); this page reads \
                 format {VERSION}. Reload to get the latest version."
            ),
            DecodeError::BadVersion => f.write_str("the link's format version is unreadable"),
            DecodeError::Base64 => f.write_str("the link is damaged (invalid base64)"),
            DecodeError::Deflate => {
                f.write_str("the link is damaged (the compressed data is truncated or corrupt)")
            }
            DecodeError::TooLarge => write!(
                f,
                "the link expands to more than {} KiB and was refused",
                MAX_JSON / 1024
            ),
            DecodeError::Json(e) => write!(f, "the link's content is malformed: {e}"),
            DecodeError::Invalid(e) => write!(f, "the link's content was refused: {e}"),
        }
    }
}

/// The fragment (without `#`) for a document.
pub fn encode(doc: &Doc) -> String {
    let mut doc = doc.shareable();
    // User pictures are not shareable; a link falls back to the built-in pattern.
    for t in &mut doc.inputs.textures {
        if t.pattern == crate::doc::model::Pattern::Image {
            t.pattern = crate::doc::model::Pattern::Checker;
        }
    }
    let json = serde_json::to_vec(&doc).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("v{VERSION}.{}", URL_SAFE_NO_PAD.encode(packed))
}

/// The fragment for an example.
pub fn encode_example(id: &str) -> String {
    format!("ex={id}")
}

/// The suffix of a link that holds the debugger's pixel.
const PIXEL: &str = ";px=";

/// The debugger's pixel a fragment holds (`;px=X,Y` at its end), if any.
pub fn pixel(fragment: &str) -> Option<(u32, u32)> {
    let (_, p) = fragment.trim().rsplit_once(PIXEL)?;
    let (x, y) = p.split_once(',')?;
    Some((x.parse().ok()?, y.parse().ok()?))
}

/// `link` holding the debugger's pixel `p`.
pub fn with_pixel(link: String, p: Option<(u32, u32)>) -> String {
    match p {
        Some((x, y)) => format!("{link}{PIXEL}{x},{y}"),
        None => link,
    }
}

/// Reads a fragment (with or without the leading `#`; a pixel suffix is left aside).
pub fn decode(fragment: &str) -> Result<Link, DecodeError> {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let f = f.split_once(PIXEL).map_or(f, |(f, _)| f);
    if f.len() > MAX_FRAGMENT {
        return Err(DecodeError::TooLong { len: f.len() });
    }
    let f = f.trim();
    if f.is_empty() {
        return Ok(Link::None);
    }
    if let Some(id) = f.strip_prefix("ex=") {
        let ok = !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/_-.".contains(&b));
        return if ok {
            Ok(Link::Example(id.to_string()))
        } else {
            Err(DecodeError::NotALink)
        };
    }
    let rest = f.strip_prefix('v').ok_or(DecodeError::NotALink)?;
    let (ver, payload) = rest.split_once('.').ok_or(DecodeError::NotALink)?;
    if ver.is_empty() || ver.len() > 9 || !ver.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DecodeError::BadVersion);
    }
    let version: u32 = ver.parse().map_err(|_| DecodeError::BadVersion)?;
    if version > VERSION {
        return Err(DecodeError::Newer { version });
    }
    if version < 1 {
        return Err(DecodeError::BadVersion);
    }
    let packed = URL_SAFE_NO_PAD
        .decode(payload.as_bytes())
        .map_err(|_| DecodeError::Base64)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_JSON).map_err(
        |e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => DecodeError::TooLarge,
            _ => DecodeError::Deflate,
        },
    )?;
    let doc: Doc = serde_json::from_slice(&json).map_err(|e| DecodeError::Json(e.to_string()))?;
    let doc = doc.sanitize().map_err(|e| DecodeError::Invalid(e.0))?;
    Ok(Link::State(Box::new(doc)))
}

/// The permalink fuzz target's body (`fuzz/fuzz_targets/permalink.rs`), also replayed on
/// `fuzz/regressions/permalink/` by `web/tests/permalink.rs`: any bytes decode to a link or
/// an error, and a decoded document encodes and decodes back to itself. Panics on a bug.
pub fn check_round_trip(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(Link::State(doc)) = decode(&text) {
        let again = decode(&encode(&doc)).expect("a re-encoded document decodes");
        assert_eq!(
            again,
            Link::State(doc),
            "the round trip changed the document"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::model::{HandEdit, ParamKey, Pattern, TexSpec};

    /// A pixel suffix: read back, left aside by `decode`; links without one still open,
    /// and a malformed one is no pixel.
    #[test]
    fn a_link_holds_the_debuggers_pixel() {
        let doc = Doc::default();
        let plain = encode(&doc);
        let link = with_pixel(plain.clone(), Some((12, 7)));
        assert_eq!(link, format!("{plain};px=12,7"));
        assert_eq!(pixel(&link), Some((12, 7)));
        assert_eq!(pixel(&format!("#{link}")), Some((12, 7)));
        assert!(matches!(decode(&link), Ok(Link::State(d)) if d.vp == doc.vp));
        let ex = with_pixel(encode_example("paper/fig3"), Some((0, 3)));
        assert!(matches!(decode(&ex), Ok(Link::Example(id)) if id == "paper/fig3"));
        assert_eq!(pixel(&ex), Some((0, 3)));
        assert_eq!(pixel(&plain), None);
        assert_eq!(pixel("ex=a;px=1"), None);
        assert_eq!(pixel("ex=a;px=-1,2"), None);
        assert_eq!(with_pixel(plain.clone(), None), plain);
    }

    fn sample() -> Doc {
        let mut d = Doc {
            vp: "vs_1_1\nmov oPos, v0\n".into(),
            fp: "ps_2_0\nmov oC0, c0 ; ünïcode ✓\n".into(),
            vp_profile: Some("vs_2_0".into()),
            example: Some("paper/fig3".into()),
            hand: Some(HandEdit {
                vp: "vs_1_1".into(),
                fp: "ps_2_0".into(),
                base: Some(u64::MAX - 7),
            }),
            hand_kept: Some(HandEdit {
                vp: "vs_2_0".into(),
                fp: "ps_3_0".into(),
                base: None,
            }),
            ..Doc::default()
        };
        d.opts.mirror_params = true;
        d.opts.stepwise = true;
        d.opts.steps = 3;
        d.opts.slp = true;
        d.opts.fp_limits.max_slots = Some(12);
        d.inputs.width = 320;
        d.inputs.set_texture(TexSpec {
            pattern: Pattern::Noise,
            linear: true,
            ..TexSpec::new(1)
        });
        d.inputs.set_param(
            ParamKey {
                vertex: false,
                local: true,
                index: 3,
            },
            [0.5, -1.25, 3e-8, 1e9],
        );
        d
    }

    #[test]
    fn round_trip_restores_everything() {
        let d = sample();
        let link = encode(&d);
        assert!(link.starts_with("v1."), "{link}");
        assert!(
            link.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        );
        assert_eq!(decode(&format!("#{link}")), Ok(Link::State(Box::new(d))));
    }

    #[test]
    fn user_images_are_not_in_links() {
        let mut d = sample();
        d.inputs.set_texture(TexSpec {
            pattern: Pattern::Image,
            ..TexSpec::new(0)
        });
        let Ok(Link::State(back)) = decode(&encode(&d)) else {
            panic!("round trip failed")
        };
        assert_eq!(back.inputs.texture(0).pattern, Pattern::Checker);
        assert_eq!(back.inputs.texture(1).pattern, Pattern::Noise);
    }

    #[test]
    fn examples_and_empty_fragments() {
        assert_eq!(decode(""), Ok(Link::None));
        assert_eq!(decode("#"), Ok(Link::None));
        assert_eq!(
            decode("#ex=paper/fig3"),
            Ok(Link::Example("paper/fig3".into()))
        );
        assert_eq!(encode_example("paper/fig3"), "ex=paper/fig3");
        assert_eq!(decode("#ex=<script>"), Err(DecodeError::NotALink));
        assert_eq!(decode("#ex="), Err(DecodeError::NotALink));
    }

    #[test]
    fn truncated_links_fail_cleanly() {
        let link = encode(&sample());
        for cut in [3, 4, 10, link.len() / 2, link.len() - 1] {
            let r = decode(&link[..cut]);
            assert!(
                matches!(
                    r,
                    Err(DecodeError::Base64 | DecodeError::Deflate | DecodeError::Json(_))
                ),
                "cut at {cut}: {r:?}"
            );
        }
    }

    #[test]
    fn wrong_versions() {
        assert_eq!(decode("#v2.AAAA"), Err(DecodeError::Newer { version: 2 }));
        let msg = DecodeError::Newer { version: 2 }.to_string();
        assert!(msg.contains("newer"), "{msg}");
        assert_eq!(decode("#v0.AAAA"), Err(DecodeError::BadVersion));
        assert_eq!(decode("#v.AAAA"), Err(DecodeError::BadVersion));
        assert_eq!(decode("#v99999999999999.AA"), Err(DecodeError::BadVersion));
        assert_eq!(decode("#hello"), Err(DecodeError::NotALink));
        assert_eq!(decode("#v1"), Err(DecodeError::NotALink));
    }

    #[test]
    fn bad_base64_and_garbage() {
        assert_eq!(decode("#v1.!!!!"), Err(DecodeError::Base64));
        assert_eq!(decode("#v1.AAA="), Err(DecodeError::Base64));
        // Valid base64, not deflate.
        let junk = URL_SAFE_NO_PAD.encode([0xffu8; 40]);
        assert_eq!(decode(&format!("v1.{junk}")), Err(DecodeError::Deflate));
        // Valid deflate, not JSON.
        let text = URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(b"hi", 6));
        assert!(matches!(
            decode(&format!("v1.{text}")),
            Err(DecodeError::Json(_))
        ));
        // JSON of the wrong shape.
        let wrong =
            URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(br#"{"vp": 5}"#, 6));
        assert!(matches!(
            decode(&format!("v1.{wrong}")),
            Err(DecodeError::Json(_))
        ));
    }

    #[test]
    fn huge_fragments_are_refused_before_decoding() {
        let huge = format!("v1.{}", "A".repeat(MAX_FRAGMENT + 1));
        assert!(matches!(decode(&huge), Err(DecodeError::TooLong { .. })));
    }

    #[test]
    fn zip_bombs_stop_at_the_limit() {
        // 16 MiB of spaces compress to about 16 KiB; inflation must stop at MAX_JSON.
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; 16 << 20], 10);
        let enc = URL_SAFE_NO_PAD.encode(&bomb);
        assert!(enc.len() < MAX_FRAGMENT, "{}", enc.len());
        assert_eq!(decode(&format!("v1.{enc}")), Err(DecodeError::TooLarge));
    }

    #[test]
    fn hostile_values_are_sanitized_or_refused() {
        let mut d = sample();
        d.inputs.width = u32::MAX;
        let Ok(Link::State(back)) = decode(&encode(&d)) else {
            panic!()
        };
        assert_eq!(back.inputs.width, crate::doc::model::MAX_SIZE);
        // NaN does not survive JSON (it becomes null) and is refused as malformed.
        d.inputs.params[0].value[0] = f32::NAN;
        assert!(decode(&encode(&d)).is_err());
        // Oversized program inside a small link (it compresses well).
        let mut d = sample();
        d.vp = "a".repeat(crate::doc::model::MAX_PROGRAM * 2);
        assert!(matches!(decode(&encode(&d)), Err(DecodeError::Invalid(_))));
    }
}
